//! Parsing of `#[tool(...)]` and of the parameter attributes `#[arg(...)]` / `#[args]`.
//!
//! Parsing only records what was written, with spans; the rules that relate keys to each
//! other or to the function live in [`crate::check`] and [`crate::model`].

use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Expr, LitBool, LitInt, LitStr, Path, Token, bracketed};

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
    pub overrides: bool,
    pub timeout_secs: Option<LitInt>,
    pub needs_approval: bool,
    pub read_only: bool,
    pub destructive: bool,
    pub unlisted: bool,
    pub krate: Option<Path>,
    pub description: Option<LitStr>,
}

const TOOL_KEYS: &str = "toolset, emoji, check, name, requires_env, max_result_chars, \
                         dynamic_schema, overrides, timeout_secs, needs_approval, read_only, destructive, unlisted, \
                         crate, description";

impl ToolAttr {
    /// Parses the attribute's arguments, reporting every bad key, not just the first.
    pub fn parse(tokens: proc_macro2::TokenStream) -> syn::Result<ToolAttr> {
        let mut attr = ToolAttr::default();
        let mut errors: Option<syn::Error> = None;
        syn::meta::parser(|meta| {
            if let Err(err) = attr.key(&meta) {
                combine(&mut errors, err);
                skip_value(&meta)?;
            }
            Ok(())
        })
        .parse2(tokens)?;
        errors.map_or(Ok(attr), Err)
    }

    fn key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let path = &meta.path;
        let once = |taken: bool| {
            if taken {
                Err(meta.error("this key is given twice"))
            } else {
                Ok(())
            }
        };
        if path.is_ident("toolset") {
            once(self.toolset.is_some())?;
            self.toolset = Some(meta.value()?.parse()?);
        } else if path.is_ident("emoji") {
            once(self.emoji.is_some())?;
            self.emoji = Some(meta.value()?.parse()?);
        } else if path.is_ident("check") {
            once(self.check.is_some())?;
            self.check = Some(meta.value()?.parse()?);
        } else if path.is_ident("name") {
            once(self.name.is_some())?;
            self.name = Some(meta.value()?.parse()?);
        } else if path.is_ident("requires_env") {
            once(!self.requires_env.is_empty())?;
            let value = meta.value()?;
            let content;
            bracketed!(content in value);
            self.requires_env = content
                .parse_terminated(|s: ParseStream<'_>| s.parse::<LitStr>(), Token![,])?
                .into_iter()
                .collect();
        } else if path.is_ident("max_result_chars") {
            once(self.max_result_chars.is_some())?;
            self.max_result_chars = Some(meta.value()?.parse()?);
        } else if path.is_ident("dynamic_schema") {
            once(self.dynamic_schema.is_some())?;
            self.dynamic_schema = Some(meta.value()?.parse()?);
        } else if path.is_ident("overrides") {
            once(self.overrides)?;
            self.overrides = flag(meta)?;
        } else if path.is_ident("timeout_secs") {
            once(self.timeout_secs.is_some())?;
            self.timeout_secs = Some(meta.value()?.parse()?);
        } else if path.is_ident("needs_approval") {
            once(self.needs_approval)?;
            self.needs_approval = flag(meta)?;
        } else if path.is_ident("read_only") {
            once(self.read_only)?;
            self.read_only = flag(meta)?;
        } else if path.is_ident("destructive") {
            once(self.destructive)?;
            self.destructive = flag(meta)?;
        } else if path.is_ident("unlisted") {
            once(self.unlisted)?;
            self.unlisted = flag(meta)?;
        } else if path.is_ident("crate") {
            once(self.krate.is_some())?;
            self.krate = Some(meta.value()?.parse()?);
        } else if path.is_ident("description") {
            once(self.description.is_some())?;
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
    pub pattern: Option<LitStr>,
    pub default: Option<Expr>,
    pub rename: Option<LitStr>,
    pub description: Option<LitStr>,
}

const ARG_KEYS: &str = "max_items, min_items, max_length, min_length, minimum, maximum, \
                        pattern, default, rename, description";

impl ArgAttr {
    /// Parses every `#[arg(...)]` in `attrs` into one, collecting every error.
    pub fn from_attrs(attrs: &[Attribute]) -> syn::Result<ArgAttr> {
        let mut arg = ArgAttr::default();
        let mut errors: Option<syn::Error> = None;
        for attr in attrs.iter().filter(|a| a.path().is_ident("arg")) {
            let parsed = attr.parse_nested_meta(|meta| {
                if let Err(err) = arg.key(&meta) {
                    combine(&mut errors, err);
                    skip_value(&meta)?;
                }
                Ok(())
            });
            if let Err(err) = parsed {
                combine(&mut errors, err);
            }
        }
        errors.map_or(Ok(arg), Err)
    }

    fn key(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let path = &meta.path;
        macro_rules! set {
            ($field:ident) => {{
                if self.$field.is_some() {
                    return Err(meta.error("this key is given twice"));
                }
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

/// Consumes `= value` after a rejected key so parsing can go on to report the next error.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

pub fn combine(errors: &mut Option<syn::Error>, err: syn::Error) {
    match errors {
        Some(existing) => existing.combine(err),
        None => *errors = Some(err),
    }
}

fn path_text(path: &Path) -> String {
    quote::quote!(#path).to_string().replace(' ', "")
}
