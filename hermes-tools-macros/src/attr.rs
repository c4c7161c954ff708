//! Parsing of `#[tool(...)]` and of the parameter attributes `#[arg(...)]` / `#[args]`.
//!
//! Parsing only records what was written, with spans; the rules that relate keys to each
//! other or to the function live in [`crate::check`] and [`crate::model`].

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Expr, LitBool, LitInt, LitStr, Path, Token, bracketed};

use crate::check::Ctxt;

/// A flag key (`read_only`, `read_only = true`), with where it was written.
#[derive(Clone, Copy, Default)]
pub struct Flag {
    /// The key's span, when it was written (even as `= false`).
    pub span: Option<Span>,
    pub value: bool,
}

impl Flag {
    fn set(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        once(meta, self.span.is_some())?;
        self.value = flag(meta)?;
        self.span = Some(span_of(&meta.path));
        Ok(())
    }

    /// Where the flag was written, when it is set.
    pub fn set_at(&self) -> Option<Span> {
        self.span.filter(|_| self.value)
    }
}

/// The keys written in an attribute, whether or not their values parsed: a key whose value
/// was refused is reported once, not again as "missing".
#[derive(Default)]
struct Written {
    keys: Vec<String>,
    /// Parsing stopped at a syntax error: any key may have followed.
    incomplete: bool,
}

impl Written {
    fn maybe(&self, key: &str) -> bool {
        self.incomplete || self.keys.iter().any(|k| k == key)
    }
}

/// The keys of `#[tool(...)]`, as written.
#[derive(Default)]
pub struct ToolAttr {
    pub toolset: Option<LitStr>,
    pub emoji: Option<LitStr>,
    pub check: Option<Path>,
    pub name: Option<LitStr>,
    pub requires_env: Vec<LitStr>,
    pub max_result_chars: Option<LitInt>,
    pub dynamic_schema: Option<Path>,
    pub overrides: Flag,
    pub timeout_secs: Option<LitInt>,
    pub needs_approval: Flag,
    pub blocking: Flag,
    pub raw_output: Flag,
    pub read_only: Flag,
    pub destructive: Flag,
    /// Tri-state: not written (as `read_only` says), `parallel`, or `parallel = false`.
    pub parallel: Flag,
    pub unlisted: Flag,
    pub krate: Option<Path>,
    pub description: Option<LitStr>,
    written: Written,
}

const TOOL_KEYS: &str = "toolset, emoji, check, name, requires_env, max_result_chars, \
                         dynamic_schema, overrides, timeout_secs, needs_approval, blocking, \
                         raw_output, read_only, destructive, parallel, unlisted, crate, \
                         description";

impl ToolAttr {
    /// Parses the attribute's arguments, reporting every bad key to `cx`, not just the first,
    /// and keeping every good one.
    pub fn parse(cx: &Ctxt, tokens: proc_macro2::TokenStream) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let complete = parse_keys(cx, tokens, |meta| {
            attr.written.keys.push(path_text(&meta.path));
            attr.key(meta)
        });
        attr.written.incomplete = !complete;
        attr
    }

    /// Whether `key` was written, or may have been (after a syntax error).
    pub fn maybe_written(&self, key: &str) -> bool {
        self.written.maybe(key)
    }

    fn key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let path = &meta.path;
        if path.is_ident("toolset") {
            once(meta, self.toolset.is_some())?;
            self.toolset = Some(meta.value()?.parse()?);
        } else if path.is_ident("emoji") {
            once(meta, self.emoji.is_some())?;
            self.emoji = Some(meta.value()?.parse()?);
        } else if path.is_ident("check") {
            once(meta, self.check.is_some())?;
            self.check = Some(meta.value()?.parse()?);
        } else if path.is_ident("name") {
            once(meta, self.name.is_some())?;
            self.name = Some(meta.value()?.parse()?);
        } else if path.is_ident("requires_env") {
            once(meta, !self.requires_env.is_empty())?;
            let value = meta.value()?;
            let content;
            bracketed!(content in value);
            self.requires_env = content
                .parse_terminated(|s: ParseStream<'_>| s.parse::<LitStr>(), Token![,])?
                .into_iter()
                .collect();
        } else if path.is_ident("max_result_chars") {
            once(meta, self.max_result_chars.is_some())?;
            self.max_result_chars = Some(meta.value()?.parse()?);
        } else if path.is_ident("dynamic_schema") {
            once(meta, self.dynamic_schema.is_some())?;
            self.dynamic_schema = Some(meta.value()?.parse()?);
        } else if path.is_ident("overrides") {
            self.overrides.set(meta)?;
        } else if path.is_ident("timeout_secs") {
            once(meta, self.timeout_secs.is_some())?;
            self.timeout_secs = Some(meta.value()?.parse()?);
        } else if path.is_ident("needs_approval") {
            self.needs_approval.set(meta)?;
        } else if path.is_ident("blocking") {
            self.blocking.set(meta)?;
        } else if path.is_ident("raw_output") {
            self.raw_output.set(meta)?;
        } else if path.is_ident("read_only") {
            self.read_only.set(meta)?;
        } else if path.is_ident("destructive") {
            self.destructive.set(meta)?;
        } else if path.is_ident("parallel") {
            self.parallel.set(meta)?;
        } else if path.is_ident("unlisted") {
            self.unlisted.set(meta)?;
        } else if path.is_ident("crate") {
            once(meta, self.krate.is_some())?;
            self.krate = Some(meta.value()?.parse()?);
        } else if path.is_ident("description") {
            once(meta, self.description.is_some())?;
            self.description = Some(meta.value()?.parse()?);
        } else {
            return Err(meta.error(format!(
                "unknown #[tool] key `{}`; expected one of: {TOOL_KEYS}",
                path_text(path)
            )));
        }
        Ok(())
    }
}

/// The keys of `#[arg(...)]` on a parameter, as written.
#[derive(Default)]
pub struct ArgAttr {
    pub max_items: Option<LitInt>,
    pub min_items: Option<LitInt>,
    pub max_length: Option<LitInt>,
    pub min_length: Option<LitInt>,
    pub minimum: Option<Expr>,
    pub maximum: Option<Expr>,
    pub clamp: Flag,
    pub pattern: Option<LitStr>,
    pub default: Option<Expr>,
    pub rename: Option<LitStr>,
    pub description: Option<LitStr>,
    written: Written,
}

const ARG_KEYS: &str = "max_items, min_items, max_length, min_length, minimum, maximum, \
                        clamp, pattern, default, rename, description";

impl ArgAttr {
    /// Parses every `#[arg(...)]` in `attrs` into one, reporting every error to `cx`.
    pub fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> ArgAttr {
        let mut arg = ArgAttr::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("arg")) {
            let parsed = attr.parse_nested_meta(|meta| {
                arg.written.keys.push(path_text(&meta.path));
                if let Err(err) = arg.key(&meta) {
                    cx.syn_error(err);
                    skip_value(&meta)?;
                }
                Ok(())
            });
            if let Err(err) = parsed {
                cx.syn_error(err);
                arg.written.incomplete = true;
            }
        }
        arg
    }

    /// Whether `key` was written, or may have been (after a syntax error).
    pub fn maybe_written(&self, key: &str) -> bool {
        self.written.maybe(key)
    }

    fn key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let path = &meta.path;
        macro_rules! set {
            ($field:ident) => {{
                once(meta, self.$field.is_some())?;
                self.$field = Some(meta.value()?.parse()?);
            }};
        }
        if path.is_ident("max_items") {
            set!(max_items)
        } else if path.is_ident("min_items") {
            set!(min_items)
        } else if path.is_ident("max_length") {
            set!(max_length)
        } else if path.is_ident("min_length") {
            set!(min_length)
        } else if path.is_ident("minimum") {
            set!(minimum)
        } else if path.is_ident("maximum") {
            set!(maximum)
        } else if path.is_ident("clamp") {
            self.clamp.set(meta)?;
        } else if path.is_ident("pattern") {
            set!(pattern)
        } else if path.is_ident("default") {
            set!(default)
        } else if path.is_ident("rename") {
            set!(rename)
        } else if path.is_ident("description") {
            set!(description)
        } else {
            return Err(meta.error(format!(
                "unknown #[arg] key `{}`; expected one of: {ARG_KEYS}",
                path_text(path)
            )));
        }
        Ok(())
    }
}

/// Whether a parameter's attributes mark it `#[args]` (the whole argument object).
pub fn args_marker(attrs: &[Attribute]) -> Option<&Attribute> {
    attrs.iter().find(|a| a.path().is_ident("args"))
}

/// Whether `attr` is one that `#[tool]` consumes from a parameter.
pub fn is_parameter_attr(attr: &Attribute) -> bool {
    attr.path().is_ident("arg") || attr.path().is_ident("args") || attr.path().is_ident("doc")
}

fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        Ok(meta.value()?.parse::<LitBool>()?.value)
    } else {
        Ok(true)
    }
}

/// Parses an attribute's arguments (`key = value, flag, ...`), giving each key to `each`. A
/// key `each` rejects is reported to `cx` and its value skipped, so that every bad key is
/// reported, not just the first. Returns whether the arguments parsed to their end.
pub fn parse_keys(
    cx: &Ctxt,
    tokens: proc_macro2::TokenStream,
    mut each: impl FnMut(&ParseNestedMeta<'_>) -> syn::Result<()>,
) -> bool {
    let parsed = syn::meta::parser(|meta| {
        if let Err(err) = each(&meta) {
            cx.syn_error(err);
            skip_value(&meta)?;
        }
        Ok(())
    })
    .parse2(tokens);
    match parsed {
        Ok(()) => true,
        Err(err) => {
            cx.syn_error(err);
            false
        }
    }
}

/// Consumes `= value` after a rejected key so parsing can go on to report the next error.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

/// An error when `taken`: the key was given before.
pub fn once(meta: &ParseNestedMeta<'_>, taken: bool) -> syn::Result<()> {
    if taken {
        Err(meta.error("this key is given twice"))
    } else {
        Ok(())
    }
}

fn span_of(path: &Path) -> Span {
    syn::spanned::Spanned::span(path)
}

pub fn path_text(path: &Path) -> String {
    quote::quote!(#path).to_string().replace(' ', "")
}
