//! Parsing of `#[tool(...)]` and of the parameter attributes `#[arg(...)]` / `#[args]`.
//!
//! Parsing only records what was written, with spans; the rules that relate keys to each
//! other or to the function live in [`crate::check`] and [`crate::model`].

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream, Parser};
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

/// One key of an attribute: its name, and how its value is read into the attribute `A`.
pub struct Key<A> {
    name: &'static str,
    parse: KeyParser<A>,
}

type KeyParser<A> = fn(&mut A, &ParseNestedMeta<'_>) -> syn::Result<()>;

impl<A> Key<A> {
    pub const fn new(name: &'static str, parse: KeyParser<A>) -> Self {
        Key { name, parse }
    }
}

/// An attribute's keys: the one table its parser looks keys up in and its "unknown key" error
/// lists, so the two cannot disagree.
pub struct Keys<A: 'static> {
    /// The attribute, as the error names it (`#[tool]`).
    pub attribute: &'static str,
    pub keys: &'static [Key<A>],
}

impl<A> Keys<A> {
    /// Reads the key `meta` into `attr`, or refuses it, naming every key of the table.
    pub fn parse(&self, attr: &mut A, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        match self.keys.iter().find(|key| meta.path.is_ident(key.name)) {
            Some(key) => (key.parse)(attr, meta),
            None => Err(meta.error(format!(
                "unknown {} key `{}`; expected one of: {}",
                self.attribute,
                path_text(&meta.path),
                self.names().join(", ")
            ))),
        }
    }

    /// The keys' names, in the table's order.
    pub fn names(&self) -> Vec<&'static str> {
        self.keys.iter().map(|key| key.name).collect()
    }
}

/// The keys of `#[tool(...)]`, as written.
#[derive(Default)]
pub struct ToolAttr {
    pub toolset: Option<LitStr>,
    pub emoji: Option<LitStr>,
    pub check: Option<Path>,
    pub config_check: Option<Path>,
    pub name: Option<LitStr>,
    pub requires_env: Vec<LitStr>,
    pub max_result_chars: Option<LitInt>,
    pub dynamic_schema: Option<Path>,
    pub overrides: Flag,
    pub timeout_secs: Option<LitInt>,
    pub needs_approval: Flag,
    pub blocking: Flag,
    pub task: Flag,
    pub raw_output: Flag,
    pub read_only: Flag,
    pub destructive: Flag,
    /// Tri-state: not written (as `read_only` says), `parallel`, or `parallel = false`.
    pub parallel: Flag,
    pub unlisted: Flag,
    pub krate: Option<Path>,
    pub description: Option<LitStr>,
    /// Every `acknowledge(rule = "…", reason = "…")`, in order.
    pub acknowledge: Vec<Acknowledge>,
    written: Written,
}

/// One `acknowledge(rule = "…", reason = "…")` of `#[tool]`: a lint finding accepted.
pub struct Acknowledge {
    /// The `acknowledge` key itself.
    pub span: Span,
    pub rule: Option<LitStr>,
    pub reason: Option<LitStr>,
}

impl Acknowledge {
    fn parse(meta: &ParseNestedMeta<'_>) -> syn::Result<Self> {
        let mut ack = Acknowledge {
            span: span_of(&meta.path),
            rule: None,
            reason: None,
        };
        meta.parse_nested_meta(|inner| {
            if inner.path.is_ident("rule") {
                value(&inner, &mut ack.rule)
            } else if inner.path.is_ident("reason") {
                value(&inner, &mut ack.reason)
            } else {
                Err(inner.error(format!(
                    "unknown acknowledge key `{}`; expected one of: rule, reason",
                    path_text(&inner.path)
                )))
            }
        })?;
        Ok(ack)
    }
}

/// The keys of `#[tool(...)]`, in the order the "expected one of" message lists them.
const TOOL_KEYS: Keys<ToolAttr> = Keys {
    attribute: "#[tool]",
    keys: &[
        Key::new("toolset", |a, m| value(m, &mut a.toolset)),
        Key::new("emoji", |a, m| value(m, &mut a.emoji)),
        Key::new("check", |a, m| value(m, &mut a.check)),
        Key::new("config_check", |a, m| value(m, &mut a.config_check)),
        Key::new("name", |a, m| value(m, &mut a.name)),
        Key::new("requires_env", |a, m| {
            once(m, !a.requires_env.is_empty())?;
            let value = m.value()?;
            let content;
            bracketed!(content in value);
            a.requires_env = content
                .parse_terminated(|s: ParseStream<'_>| s.parse::<LitStr>(), Token![,])?
                .into_iter()
                .collect();
            Ok(())
        }),
        Key::new("max_result_chars", |a, m| value(m, &mut a.max_result_chars)),
        Key::new("dynamic_schema", |a, m| value(m, &mut a.dynamic_schema)),
        Key::new("overrides", |a, m| a.overrides.set(m)),
        Key::new("timeout_secs", |a, m| value(m, &mut a.timeout_secs)),
        Key::new("needs_approval", |a, m| a.needs_approval.set(m)),
        Key::new("blocking", |a, m| a.blocking.set(m)),
        Key::new("task", |a, m| a.task.set(m)),
        Key::new("raw_output", |a, m| a.raw_output.set(m)),
        Key::new("read_only", |a, m| a.read_only.set(m)),
        Key::new("destructive", |a, m| a.destructive.set(m)),
        Key::new("parallel", |a, m| a.parallel.set(m)),
        Key::new("unlisted", |a, m| a.unlisted.set(m)),
        Key::new("crate", |a, m| value(m, &mut a.krate)),
        Key::new("description", |a, m| value(m, &mut a.description)),
        Key::new("acknowledge", |a, m| {
            a.acknowledge.push(Acknowledge::parse(m)?);
            Ok(())
        }),
    ],
};

impl ToolAttr {
    /// Parses the attribute's arguments, reporting every bad key to `cx`, not just the first,
    /// and keeping every good one.
    pub fn parse(cx: &Ctxt, tokens: proc_macro2::TokenStream) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let complete = parse_keys(cx, tokens, |meta| {
            attr.written.keys.push(path_text(&meta.path));
            TOOL_KEYS.parse(&mut attr, meta)
        });
        attr.written.incomplete = !complete;
        attr
    }

    /// Whether `key` was written, or may have been (after a syntax error).
    pub fn maybe_written(&self, key: &str) -> bool {
        self.written.maybe(key)
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

/// The keys of `#[arg(...)]`, in the order the "expected one of" message lists them.
const ARG_KEYS: Keys<ArgAttr> = Keys {
    attribute: "#[arg]",
    keys: &[
        Key::new("max_items", |a, m| value(m, &mut a.max_items)),
        Key::new("min_items", |a, m| value(m, &mut a.min_items)),
        Key::new("max_length", |a, m| value(m, &mut a.max_length)),
        Key::new("min_length", |a, m| value(m, &mut a.min_length)),
        Key::new("minimum", |a, m| value(m, &mut a.minimum)),
        Key::new("maximum", |a, m| value(m, &mut a.maximum)),
        Key::new("clamp", |a, m| a.clamp.set(m)),
        Key::new("pattern", |a, m| value(m, &mut a.pattern)),
        Key::new("default", |a, m| value(m, &mut a.default)),
        Key::new("rename", |a, m| value(m, &mut a.rename)),
        Key::new("description", |a, m| value(m, &mut a.description)),
    ],
};

impl ArgAttr {
    /// Parses every `#[arg(...)]` in `attrs` into one, reporting every error to `cx`.
    pub fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> ArgAttr {
        let mut arg = ArgAttr::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident(ARG)) {
            let parsed = attr.parse_nested_meta(|meta| {
                arg.written.keys.push(path_text(&meta.path));
                if let Err(err) = ARG_KEYS.parse(&mut arg, &meta) {
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
}

/// The parameter attributes `#[tool]` consumes: `#[arg(...)]`, `#[args]` and `///`.
pub const ARG: &str = "arg";
pub const ARGS: &str = "args";
const PARAMETER_ATTRS: &[&str] = &[ARG, ARGS, "doc"];

/// Whether a parameter's attributes mark it `#[args]` (the whole argument object).
pub fn args_marker(attrs: &[Attribute]) -> Option<&Attribute> {
    attrs.iter().find(|a| a.path().is_ident(ARGS))
}

/// Whether `attr` is one that `#[tool]` consumes from a parameter.
pub fn is_parameter_attr(attr: &Attribute) -> bool {
    PARAMETER_ATTRS
        .iter()
        .any(|name| attr.path().is_ident(name))
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

/// Reads `key = value` into an empty `slot`; a second `key` is an error.
pub fn value<T: Parse>(meta: &ParseNestedMeta<'_>, slot: &mut Option<T>) -> syn::Result<()> {
    once(meta, slot.is_some())?;
    *slot = Some(meta.value()?.parse()?);
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

#[cfg(test)]
pub mod tests {
    use super::*;

    /// Checks a table: its names are distinct, every key is looked up (a key written alone
    /// may lack its value, but is never "unknown"), and an unknown key's error lists the table.
    pub fn check_table<A: Default>(keys: &Keys<A>) {
        let names = keys.names();
        for (index, name) in names.iter().enumerate() {
            assert!(
                !names[..index].contains(name),
                "{name} is in the table twice"
            );
            let meta: proc_macro2::TokenStream = name.parse().unwrap();
            let mut attr = A::default();
            let parsed = syn::meta::parser(|meta| keys.parse(&mut attr, &meta)).parse2(meta);
            if let Err(err) = parsed {
                assert!(!err.to_string().starts_with("unknown"), "{name}: {err}");
            }
        }
        let mut attr = A::default();
        let err = syn::meta::parser(|meta| keys.parse(&mut attr, &meta))
            .parse2(quote::quote!(colour = "red"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "unknown {} key `colour`; expected one of: {}",
                keys.attribute,
                names.join(", ")
            )
        );
    }

    #[test]
    fn tool_and_arg_keys() {
        check_table(&TOOL_KEYS);
        check_table(&ARG_KEYS);
    }
}
