//! `#[resource]` and `#[prompt]`: a plain function becomes a `ResourceDecl` in `RESOURCES` or
//! a `PromptDecl` in `PROMPTS`, served over MCP by the runtime's `ToolServer`.
//!
//! ```ignore
//! /// A day's note.
//! #[resource(uri = "notes://{day}", mime_type = "text/markdown")]
//! fn note(day: String) -> String { ... }
//! // expands to the function, and
//! static NOTE_RESOURCE: ::hermes_tools::__private::ResourceDecl = ...; // in RESOURCES
//! ```
//!
//! The same split as `#[tool]`'s: [`attr`] parses the keys, [`model`] is the validated entry
//! (its rules need the whole function), [`expand`] only generates code. Every error goes to
//! one [`Ctxt`]; with errors, the function is still emitted, with a placeholder `NOTE_RESOURCE`
//! / `NOTE_PROMPT` beside it.

mod attr;
mod expand;
mod model;

use proc_macro2::TokenStream;
use syn::ItemFn;

use crate::check::Ctxt;

/// Which attribute is expanded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Resource,
    Prompt,
}

impl Kind {
    /// The attribute, as errors name it: `#[resource]`.
    fn attribute(self) -> &'static str {
        attr::keys(self).attribute
    }

    /// What it declares, in messages.
    fn noun(self) -> &'static str {
        match self {
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }

    /// The suffix of its static: `NOTE_RESOURCE`.
    fn suffix(self) -> &'static str {
        match self {
            Kind::Resource => "RESOURCE",
            Kind::Prompt => "PROMPT",
        }
    }

    /// The runtime's declaration type, in `__private`.
    fn decl(self) -> &'static str {
        match self {
            Kind::Resource => "ResourceDecl",
            Kind::Prompt => "PromptDecl",
        }
    }
}

/// Expands `#[resource(args)]` or `#[prompt(args)]` on `item`.
pub fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let function = match syn::parse2::<ItemFn>(item) {
        Ok(function) => function,
        Err(err) => {
            let message = format!("{} goes on a free function", kind.attribute());
            return syn::Error::new(err.span(), message).to_compile_error();
        }
    };
    let cx = Ctxt::new();
    let attr = attr::CatalogAttr::parse(&cx, kind, args);
    let entry = model::Entry::new(&cx, kind, attr, &function);
    match cx.check() {
        Ok(()) => expand::expand(&entry, &function),
        Err(err) => expand::fallback(&entry, &function, err),
    }
}
