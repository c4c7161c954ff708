//! The `#[tool]`, `#[resource]`, `#[prompt]` and `#[plugin]` attributes of
//! [hermes-tools](https://docs.rs/hermes-tools).
//!
//! Use it through `hermes_tools::tool`; the expansion names runtime items only through
//! `::hermes_tools::__private`, so tool crates need no direct serde, schemars or linkme
//! dependency.
//!
//! The crate follows serde_derive's split: `attr` parses `#[tool(...)]` and `#[arg(...)]`,
//! `docs` reads doc comments, `model` is the validated tool, `check` holds the rules that
//! need the whole tool, and `expand` only generates code. Errors from every stage are
//! collected in one `check::Ctxt` and reported together, each spanned at the token at fault;
//! with errors, the function is still emitted, with a placeholder `FOO_TOOL` beside it, so
//! that no second error follows from the first. `#[resource]` and `#[prompt]` follow the same
//! split in `catalog` (`catalog::attr`, `catalog::model`, `catalog::expand`, placeholders
//! `FOO_RESOURCE` / `FOO_PROMPT`). Each attribute's keys are one table (`attr::Keys`), which
//! its parser looks keys up in and its "unknown key" error lists.
//!
//! Generated code is hygienic: its locals are mixed-site (`expand::local`), a parameter's
//! value is bound to a name of the expansion's own, items beside a call of the function are
//! named after it (`expand::item_ident`), and every path is absolute (`::core::...`).

mod attr;
mod bounds;
mod catalog;
mod check;
mod docs;
mod expand;
mod model;
mod plugin;

use proc_macro::TokenStream;

/// Declares a plain function as an LLM tool. See the `hermes_tools` crate documentation.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut function = match syn::parse::<syn::ItemFn>(item) {
        Ok(function) => function,
        Err(err) => {
            return syn::Error::new(
                err.span(),
                "#[tool] goes on a free function: `fn name(...) -> ... { ... }`",
            )
            .to_compile_error()
            .into();
        }
    };
    // Parameter attributes are stripped first, on every path: an unstripped `///` or `#[arg]`
    // on a parameter would add a second, confusing error to the user's first one.
    let params = model::take_params(&mut function);
    let cx = check::Ctxt::new();
    let attr = attr::ToolAttr::parse(&cx, args.into());
    let tool = model::Tool::new(&cx, attr, &function, params);
    match cx.check() {
        Ok(()) => expand::expand(&tool, &function).into(),
        Err(err) => expand::fallback(&tool.krate, &function, err).into(),
    }
}

/// Declares a resource an MCP client may read. See `hermes_tools::mcp::resources`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    catalog::expand(catalog::Kind::Resource, args.into(), item.into()).into()
}

/// Declares a prompt an MCP client may fetch. See `hermes_tools::mcp::prompts`.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    catalog::expand(catalog::Kind::Prompt, args.into(), item.into()).into()
}

/// Declares a plugin's register function. See `hermes_tools::plugins`.
#[proc_macro_attribute]
pub fn plugin(args: TokenStream, item: TokenStream) -> TokenStream {
    plugin::expand(args.into(), item.into()).into()
}
