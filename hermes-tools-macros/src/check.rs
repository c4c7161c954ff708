//! Compile-time rules on attribute values: each returns an error spanned at the value at fault.
//! Also the error accumulator every stage reports into ([`Ctxt`]), and the rule that decides
//! whether a tool's arguments are validated even when they deserialize ([`serde_judges_as_schema`]).

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use proc_macro2::Span;
use quote::ToTokens;
use syn::{GenericArgument, LitInt, LitStr, PathArguments, Type};
use unicode_segmentation::UnicodeSegmentation;

/// The errors of one expansion, collected across attribute parsing, the model and the checks
/// so that they are all reported together (serde_derive's `Ctxt`): a user fixing the first
/// error should not discover the next one only on the next build.
///
/// Shared by reference (the errors sit in a `RefCell`), so closures and helpers can report
/// while the caller holds other borrows. It must be consumed with [`Ctxt::check`]: dropping it
/// unchecked is a bug in the macro and panics, as serde_derive's does.
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Reports `message` spanned at `tokens`.
    pub fn error_spanned_by(&self, tokens: impl ToTokens, message: impl Display) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Reports `message` at `span`.
    pub fn error_at(&self, span: Span, message: impl Display) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Reports an error built elsewhere (it may already hold several).
    pub fn syn_error(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(err);
    }

    /// The value of `result`, reporting its error.
    pub fn ok<T>(&self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|err| self.syn_error(err)).ok()
    }

    /// Every reported error, combined into one.
    pub fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        errors
            .into_iter()
            .reduce(|mut all, err| {
                all.combine(err);
                all
            })
            .map_or(Ok(()), Err)
    }
}

impl Default for Ctxt {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}

/// The lint rules a tool can acknowledge, as `lint` names them (`Rule::as_str` in the
/// runtime's `definitions::lint`).
pub const LINT_RULES: &[&str] = &[
    "summary",
    "parameter-description",
    "cross-toolset-reference",
    "placeholder",
    "strict-mode",
    "schema-mismatch",
    "provider-limit",
];

/// The `acknowledge(...)` keys of a tool, as (rule, reason): each names a known rule once and
/// gives a reason.
pub fn acknowledgements(cx: &Ctxt, acks: &[crate::attr::Acknowledge]) -> Vec<(String, String)> {
    let mut accepted: Vec<(String, String)> = Vec::new();
    for ack in acks {
        let Some(rule) = &ack.rule else {
            cx.error_at(
                ack.span,
                format!(
                    "`acknowledge` needs the rule it accepts: acknowledge(rule = \"…\", reason = \"…\") with a rule of: {}",
                    LINT_RULES.join(", ")
                ),
            );
            continue;
        };
        let name = rule.value();
        if !LINT_RULES.contains(&name.as_str()) {
            cx.error_spanned_by(
                rule,
                format!(
                    "unknown lint rule {name:?}; expected one of: {}",
                    LINT_RULES.join(", ")
                ),
            );
            continue;
        }
        if accepted.iter().any(|(known, _)| *known == name) {
            cx.error_spanned_by(rule, format!("rule {name:?} is acknowledged twice"));
            continue;
        }
        let reason = ack.reason.as_ref().map(LitStr::value).unwrap_or_default();
        if reason.trim().is_empty() {
            let message = "an acknowledgement needs a reason: `reason = \"…\"` saying why the \
                           finding is accepted (`lint --all` shows it)";
            match &ack.reason {
                Some(lit) => cx.error_spanned_by(lit, message),
                None => cx.error_at(ack.span, message),
            }
            continue;
        }
        accepted.push((name, reason));
    }
    accepted
}

/// The rule every provider applies to tool names: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn tool_name(name: &str, span: Span) -> syn::Result<()> {
    let valid = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(syn::Error::new(
            span,
            format!(
                "invalid tool name {name:?}: providers accept 1 to 64 characters from \
                 a-z, A-Z, 0-9, '_' and '-'"
            ),
        ))
    }
}

/// Toolset and plugin names follow the tool-name rule, so they can be used in the same
/// places (config lists, aliases, hook owners). `kind` names what is checked in the error.
pub fn name_of(kind: &str, lit: &LitStr) -> syn::Result<()> {
    let value = lit.value();
    tool_name(&value, lit.span()).map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!(
                "invalid {kind} {value:?}: use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'"
            ),
        )
    })
}

/// A tool's toolset: the tool-name rule, and not `all`, which always means every tool (a
/// toolset of that name could never be selected alone).
pub fn toolset_name(lit: &LitStr) -> syn::Result<()> {
    name_of("toolset", lit)?;
    if lit.value() == "all" {
        return Err(syn::Error::new(
            lit.span(),
            "toolset \"all\" is reserved: it always selects every tool; choose another name",
        ));
    }
    Ok(())
}

/// An emoji is shown in one terminal cell: exactly one grapheme cluster.
pub fn emoji(emoji: &LitStr) -> syn::Result<String> {
    let value = emoji.value();
    let count = value.graphemes(true).count();
    if count == 1 {
        Ok(value)
    } else {
        Err(syn::Error::new(
            emoji.span(),
            format!("emoji must be exactly one grapheme, found {count} in {value:?}"),
        ))
    }
}

/// An environment variable name that `std::env::var` can look up.
pub fn env_var(var: &LitStr) -> syn::Result<()> {
    let value = var.value();
    if value.is_empty() || value.contains(['=', '\0']) {
        Err(syn::Error::new(
            var.span(),
            format!("invalid environment variable name {value:?}"),
        ))
    } else {
        Ok(())
    }
}

/// A positive count of characters.
pub fn max_result_chars(lit: &LitInt) -> syn::Result<usize> {
    match lit.base10_parse::<usize>() {
        Ok(0) | Err(_) => Err(syn::Error::new(
            lit.span(),
            "max_result_chars must be a positive whole number of characters",
        )),
        Ok(n) => Ok(n),
    }
}

/// A positive number of seconds.
pub fn timeout_secs(lit: &LitInt) -> syn::Result<u64> {
    match lit.base10_parse::<u64>() {
        Ok(0) | Err(_) => Err(syn::Error::new(
            lit.span(),
            "timeout_secs must be a positive whole number of seconds",
        )),
        Ok(n) => Ok(n),
    }
}

/// Whether serde judges a value of `ty` exactly as the schema schemars derives for it does:
/// every value the schema accepts deserializes, and every value it refuses fails to.
///
/// Why it matters: dispatch has a fast path that deserializes the arguments and calls the tool
/// without looking at the schema, and a slow path (after a failure) that coerces and validates
/// against the schema. If the type could accept what its schema refuses (a user type with a
/// custom `Deserialize`, `#[serde(untagged)]`, a newtype that parses anything, a `HashSet`
/// whose schema says `uniqueItems`...), the same arguments would be accepted on one path and
/// refused on the other. For such a type the macro sets `ToolDecl::validate`, and the runtime
/// validates every call against the schema, so no two paths judge the same arguments
/// differently. (Keywords added by `#[arg]` — `maximum`, `pattern`... — are found in the
/// schema by the runtime itself.)
///
/// Known: `String`, `bool`, `char`, the integer and float primitives, `PathBuf`,
/// `serde_json::Value`, and, recursively, `Option`, `Vec`, `Box`, and `HashMap`/`BTreeMap`
/// with `String` keys. Recognised by name, written bare or by their std path; anything else,
/// `#[args]` structs included, is not known.
pub fn serde_judges_as_schema(ty: &Type) -> bool {
    let Some((name, types)) = known_type(ty) else {
        return false;
    };
    match (name.as_str(), types.as_slice()) {
        ("Option" | "Vec" | "Box", [inner]) => serde_judges_as_schema(inner),
        ("HashMap" | "BTreeMap", [key, value]) => is_string(key) && serde_judges_as_schema(value),
        (name, []) => LEAVES.contains(&name),
        _ => false,
    }
}

/// A type named by a path the macro recognises (bare, or from where the type lives): its name
/// and its type arguments. `None` for anything else.
fn known_type(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let path = match ty {
        Type::Paren(inner) => return known_type(&inner.elem),
        Type::Group(inner) => return known_type(&inner.elem),
        Type::Path(path) if path.qself.is_none() => &path.path,
        _ => return None,
    };
    let segments: Vec<_> = path.segments.iter().collect();
    let (last, prefix) = segments.split_last()?;
    if prefix
        .iter()
        .any(|segment| !matches!(segment.arguments, PathArguments::None))
    {
        return None;
    }
    let prefix: Vec<String> = prefix.iter().map(|s| s.ident.to_string()).collect();
    let name = last.ident.to_string();
    if !known_prefix(&name, &prefix.join("::")) {
        return None;
    }
    let types = match &last.arguments {
        PathArguments::None => Vec::new(),
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
        PathArguments::Parenthesized(_) => return None,
    };
    Some((name, types))
}

const LEAVES: &[&str] = &[
    "String", "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
    "u64", "u128", "usize", "f32", "f64", "PathBuf", "Value",
];

/// Whether `prefix` (the path before `name`, `""` when bare) is where `name` is known to live.
fn known_prefix(name: &str, prefix: &str) -> bool {
    if prefix.is_empty() {
        return true;
    }
    let homes: &[&str] = match name {
        "String" => &["std::string", "alloc::string"],
        "PathBuf" => &["std::path"],
        "Value" => &["serde_json"],
        "Option" => &["std::option", "core::option"],
        "Vec" => &["std::vec", "alloc::vec"],
        "Box" => &["std::boxed", "alloc::boxed"],
        "HashMap" => &["std::collections", "std::collections::hash_map"],
        "BTreeMap" => &[
            "std::collections",
            "std::collections::btree_map",
            "alloc::collections",
            "alloc::collections::btree_map",
        ],
        _ => &["std::primitive", "core::primitive"],
    };
    homes.contains(&prefix)
}

fn is_string(ty: &Type) -> bool {
    matches!(known_type(ty), Some((name, types)) if name == "String" && types.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_serde_judges_as_their_schema() {
        let known = |text: &str| serde_judges_as_schema(&syn::parse_str::<Type>(text).unwrap());
        for ty in [
            "String",
            "std::string::String",
            "u8",
            "f64",
            "bool",
            "char",
            "std::path::PathBuf",
            "serde_json::Value",
            "Value",
            "Option<Vec<Box<i64>>>",
            "::std::option::Option<String>",
            "HashMap<String, Vec<u32>>",
            "std::collections::BTreeMap<String, Value>",
        ] {
            assert!(known(ty), "{ty} is known");
        }
        for ty in [
            "MyStruct",
            "Option<MyEnum>",
            "Vec<(i32, i32)>",
            "[u8; 4]",
            "HashMap<u32, String>",
            "HashSet<String>",
            "my::String",
            "other::Value",
            "Vec<String, MyAlloc>",
        ] {
            assert!(!known(ty), "{ty} is not known");
        }
    }

    #[test]
    fn errors_are_collected() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "one");
        cx.error_at(Span::call_site(), "two");
        let err = cx.check().unwrap_err();
        assert_eq!(err.into_iter().count(), 2);
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    fn names() {
        assert!(tool_name("read_file", Span::call_site()).is_ok());
        assert!(tool_name("mcp-time_get", Span::call_site()).is_ok());
        assert!(tool_name("", Span::call_site()).is_err());
        assert!(tool_name("has space", Span::call_site()).is_err());
        assert!(tool_name(&"a".repeat(65), Span::call_site()).is_err());
    }

    #[test]
    fn emojis() {
        let lit = |s: &str| LitStr::new(s, Span::call_site());
        assert!(emoji(&lit("❓")).is_ok());
        assert!(emoji(&lit("👨‍👩‍👧")).is_ok(), "a ZWJ family is one grapheme");
        assert!(emoji(&lit("❓❓")).is_err());
        assert!(emoji(&lit("")).is_err());
    }
}
