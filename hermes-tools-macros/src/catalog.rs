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

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{FnArg, Ident, ItemFn, LitStr, Pat, Path, Type};

use crate::attr::{once, parse_keys, path_text};
use crate::check::{self, Ctxt};
use crate::docs;
use crate::expand::{provenance, static_ident};

/// Which attribute is expanded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Resource,
    Prompt,
}

impl Kind {
    fn attribute(self) -> &'static str {
        match self {
            Kind::Resource => "#[resource]",
            Kind::Prompt => "#[prompt]",
        }
    }

    fn keys(self) -> &'static str {
        match self {
            Kind::Resource => "uri, name, mime_type, complete, crate",
            Kind::Prompt => "name, complete, crate",
        }
    }
}

/// The keys of `#[resource(...)]` and `#[prompt(...)]`, as written.
#[derive(Default)]
struct Attr {
    uri: Option<LitStr>,
    name: Option<LitStr>,
    mime_type: Option<LitStr>,
    complete: Option<Path>,
    krate: Option<Path>,
}

impl Attr {
    fn parse(cx: &Ctxt, kind: Kind, tokens: TokenStream) -> Attr {
        let mut attr = Attr::default();
        parse_keys(cx, tokens, |meta| {
            let key = path_text(&meta.path);
            let allowed: &[&str] = match kind {
                Kind::Resource => &["uri", "name", "mime_type", "complete", "crate"],
                Kind::Prompt => &["name", "complete", "crate"],
            };
            if !allowed.contains(&key.as_str()) {
                return Err(meta.error(format!(
                    "unknown {} key `{key}`; expected one of: {}",
                    kind.attribute(),
                    kind.keys()
                )));
            }
            let value = meta.value();
            match key.as_str() {
                "uri" => {
                    once(meta, attr.uri.is_some())?;
                    attr.uri = Some(value?.parse()?);
                }
                "mime_type" => {
                    once(meta, attr.mime_type.is_some())?;
                    attr.mime_type = Some(value?.parse()?);
                }
                "name" => {
                    once(meta, attr.name.is_some())?;
                    let name: LitStr = value?.parse()?;
                    check::name_of("name", &name)?;
                    attr.name = Some(name);
                }
                "complete" => {
                    once(meta, attr.complete.is_some())?;
                    attr.complete = Some(value?.parse()?);
                }
                _ => {
                    once(meta, attr.krate.is_some())?;
                    attr.krate = Some(value?.parse()?);
                }
            }
            Ok(())
        });
        attr
    }
}

/// One parameter: its name, and whether it is an `Option<String>`.
struct Param {
    ident: Ident,
    optional: bool,
}

/// The parameters, each a plain name; every other form is reported.
fn params(cx: &Ctxt, kind: Kind, function: &ItemFn) -> Vec<Param> {
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
        params.push(Param {
            ident: pat.ident.clone(),
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
fn template_names(uri: &str) -> Vec<String> {
    uri.split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(name, _)| name.to_owned()))
        .collect()
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
    let attr = Attr::parse(&cx, kind, args);
    let params = params(&cx, kind, &function);
    let docs = docs::split_arguments(&docs::lines(&function.attrs));
    let description = docs::join(
        &docs
            .description
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>(),
    );
    if description.is_empty() {
        cx.error_at(
            function.sig.ident.span(),
            format!(
                "{} needs a doc comment: it is the description clients show",
                kind.attribute()
            ),
        );
    }
    if kind == Kind::Resource {
        match &attr.uri {
            None => cx.error_at(
                Span::call_site(),
                "#[resource] needs `uri = \"scheme://...\"`",
            ),
            Some(uri) => {
                let names = template_names(&uri.value());
                let declared: Vec<String> = params.iter().map(|p| p.ident.to_string()).collect();
                if names != declared {
                    cx.error_spanned_by(
                        uri,
                        format!(
                            "the URI template's variables ({}) must be the function's parameters, \
                             in order ({}), each a `String`",
                            names.join(", "),
                            declared.join(", ")
                        ),
                    );
                }
            }
        }
    }
    if let Err(err) = cx.check() {
        let errors = err.to_compile_error();
        return quote!(#errors #function);
    }
    let krate = attr
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::hermes_tools));
    let private = quote!(#krate::__private);
    let ident = &function.sig.ident;
    let vis = &function.vis;
    let name = match &attr.name {
        Some(name) => name.value(),
        None => ident.to_string().trim_start_matches("r#").to_owned(),
    };
    let values = format_ident!("__hermes_values");
    // The values are bound to names of the expansion's own (`__hermes_arg_0`, ...), never to
    // the parameters' names: a parameter named like its function (`fn day(day: String)`) would
    // shadow the function the handler calls.
    let args: Vec<_> = (0..params.len())
        .map(|index| format_ident!("__hermes_arg_{index}"))
        .collect();
    let reads = params.iter().zip(&args).map(|(param, arg)| {
        let key = param.ident.to_string();
        if param.optional {
            quote!(let #arg = #private::prompt_argument(#values, #key);)
        } else {
            quote!(let #arg = #private::prompt_argument(#values, #key).unwrap_or_default();)
        }
    });
    let (convert, body_type) = match kind {
        Kind::Resource => (
            quote!(#private::IntoResource::into_resource),
            quote!(#private::ResourceBody),
        ),
        Kind::Prompt => (
            quote!(#private::IntoPrompt::into_prompt),
            quote!(#private::Prompt),
        ),
    };
    let call = if function.sig.asyncness.is_some() {
        quote!(::std::boxed::Box::pin(async move { #convert(#ident(#(#args),*).await) }))
    } else {
        quote!(::std::boxed::Box::pin(::core::future::ready(#convert(#ident(#(#args),*)))))
    };
    let handler = quote! {{
        fn __hermes_handler(
            #values: &[(::std::string::String, ::std::string::String)],
        ) -> #private::BoxFuture<'static, ::core::result::Result<#body_type, ::std::string::String>> {
            #(#reads)*
            #call
        }
        __hermes_handler
    }};
    let complete = match &attr.complete {
        Some(path) => quote!(::core::option::Option::Some(#path)),
        None => quote!(::core::option::Option::None),
    };
    let provenance = provenance(&private, ident.span());
    let declaration = match kind {
        Kind::Resource => {
            let uri = &attr.uri;
            let mime = attr
                .mime_type
                .as_ref()
                .map_or_else(|| "text/plain".to_owned(), LitStr::value);
            let static_ident = static_ident(ident, "RESOURCE");
            quote! {
                #[doc = "The `#[resource]` declaration of the function of this name."]
                #[allow(non_upper_case_globals)]
                #[#private::linkme::distributed_slice(#private::RESOURCES)]
                #[linkme(crate = #private::linkme)]
                #vis static #static_ident: #private::ResourceDecl = #private::ResourceDecl {
                    uri: #uri,
                    name: #name,
                    description: #description,
                    mime_type: #mime,
                    read: #handler,
                    complete: #complete,
                    provenance: #provenance,
                };
            }
        }
        Kind::Prompt => {
            let arguments = params.iter().map(|param| {
                let key = param.ident.to_string();
                let text = docs.arguments.get(&key).cloned().unwrap_or_default();
                let required = !param.optional;
                quote! {
                    #private::PromptArgumentDecl { name: #key, description: #text, required: #required }
                }
            });
            let static_ident = static_ident(ident, "PROMPT");
            quote! {
                #[doc = "The `#[prompt]` declaration of the function of this name."]
                #[allow(non_upper_case_globals)]
                #[#private::linkme::distributed_slice(#private::PROMPTS)]
                #[linkme(crate = #private::linkme)]
                #vis static #static_ident: #private::PromptDecl = #private::PromptDecl {
                    name: #name,
                    description: #description,
                    arguments: &[#(#arguments),*],
                    get: #handler,
                    complete: #complete,
                    provenance: #provenance,
                };
            }
        }
    };
    quote! {
        #function
        #declaration
    }
}
