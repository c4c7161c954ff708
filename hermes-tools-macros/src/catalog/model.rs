//! The validated resource or prompt: what the attribute understood of the function.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{FnArg, Ident, ItemFn, LitStr, Pat, Path, Type};

use super::Kind;
use super::attr::CatalogAttr;
use crate::check::Ctxt;
use crate::docs;

/// What `#[resource]` or `#[prompt]` understood of the function. Built even when there are
/// errors (they are in the [`Ctxt`]), so that every error is found in one pass; expanded only
/// without errors.
pub struct Entry {
    pub kind: Kind,
    pub krate: Path,
    pub ident: Ident,
    /// Its name: `name = "..."`, or the function's.
    pub name: String,
    /// The doc comment, without its `# Arguments` section.
    pub description: String,
    /// A resource's URI (or template); `None` for a prompt, or when it is missing.
    pub uri: Option<LitStr>,
    /// A resource's media type.
    pub mime_type: String,
    pub complete: Option<Path>,
    pub params: Vec<Param>,
    pub is_async: bool,
}

/// One parameter: its name, whether it is an `Option<String>`, and (for a prompt) what the
/// doc comment's `# Arguments` says of it.
pub struct Param {
    /// The argument's name, as the client sends it (the name without `r#`).
    pub key: String,
    pub optional: bool,
    pub description: String,
}

impl Entry {
    /// Reads the entry from its attribute and function, reporting every error to `cx`.
    pub fn new(cx: &Ctxt, kind: Kind, attr: CatalogAttr, function: &ItemFn) -> Self {
        let ident = function.sig.ident.clone();
        let docs = docs::split_arguments(&docs::lines(&function.attrs));
        if docs.description.is_empty() {
            cx.error_at(
                ident.span(),
                format!(
                    "{} needs a doc comment: it is the description clients show",
                    kind.attribute()
                ),
            );
        }
        let params = params(cx, kind, function, &docs.arguments);
        if kind == Kind::Resource {
            check_uri(cx, attr.uri.as_ref(), &params);
        }
        Entry {
            kind,
            krate: attr
                .krate
                .unwrap_or_else(|| syn::parse_quote!(::hermes_tools)),
            name: attr
                .name
                .as_ref()
                .map_or_else(|| ident.unraw().to_string(), LitStr::value),
            ident,
            description: docs.description,
            uri: attr.uri,
            mime_type: attr
                .mime_type
                .as_ref()
                .map_or_else(|| "text/plain".to_owned(), LitStr::value),
            complete: attr.complete,
            params,
            is_async: function.sig.asyncness.is_some(),
        }
    }
}

/// A resource needs a URI, and a template's `{name}`s are the parameters, in order.
fn check_uri(cx: &Ctxt, uri: Option<&LitStr>, params: &[Param]) {
    let Some(uri) = uri else {
        cx.error_at(
            Span::call_site(),
            "#[resource] needs `uri = \"scheme://...\"`",
        );
        return;
    };
    let uri_text = uri.value();
    let names = template_names(&uri_text);
    let declared: Vec<&str> = params.iter().map(|p| p.key.as_str()).collect();
    if names != declared {
        cx.error_spanned_by(
            uri,
            format!(
                "the URI template's variables ({}) must be the function's parameters, in order \
                 ({}), each a `String`",
                names.join(", "),
                declared.join(", ")
            ),
        );
    }
}

/// The parameters, each a plain name; every other form is reported.
fn params(
    cx: &Ctxt,
    kind: Kind,
    function: &ItemFn,
    doc_arguments: &std::collections::BTreeMap<String, String>,
) -> Vec<Param> {
    let mut params = Vec::new();
    for input in &function.sig.inputs {
        let FnArg::Typed(typed) = input else {
            cx.error_spanned_by(
                input,
                format!("{} goes on a free function", kind.attribute()),
            );
            continue;
        };
        let Pat::Ident(pat) = &*typed.pat else {
            cx.error_spanned_by(&typed.pat, "a parameter here is a plain name");
            continue;
        };
        let key = pat.ident.unraw().to_string();
        params.push(Param {
            description: doc_arguments.get(&key).cloned().unwrap_or_default(),
            key,
            optional: is_option(&typed.ty),
        });
    }
    params
}

/// Whether `ty` is written `Option<...>`.
fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "Option"),
        _ => false,
    }
}

/// The `{name}`s of a URI template, in order.
fn template_names(uri: &str) -> Vec<&str> {
    uri.split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(name, _)| name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::template_names;

    #[test]
    fn a_template_names_its_variables_in_order() {
        assert_eq!(template_names("notes://{day}/{part}.md"), ["day", "part"]);
        assert!(template_names("docs://readme").is_empty());
    }
}
