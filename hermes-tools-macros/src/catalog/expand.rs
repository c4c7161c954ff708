//! Code generation for `#[resource]` and `#[prompt]`. Everything here was validated by
//! [`super::model`]; nothing is checked.
//!
//! For `fn note(...)` the expansion is, beside the untouched function, one static
//! `NOTE_RESOURCE` in `RESOURCES` (or `NOTE_PROMPT` in `PROMPTS`), with the function's
//! visibility. With errors, [`fallback`] emits the function and a placeholder static instead.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ItemFn;

use super::Kind;
use super::model::Entry;
use crate::expand::{fallback_with, item_ident, local, provenance, static_ident};

pub fn expand(entry: &Entry, function: &ItemFn) -> TokenStream {
    let krate = &entry.krate;
    let private = quote!(#krate::__private);
    let ident = &entry.ident;
    let vis = &function.vis;
    let static_ident = static_ident(ident, entry.kind.suffix());
    let handler = handler(entry, &private);
    let complete = match &entry.complete {
        Some(path) => quote!(::core::option::Option::Some(#path)),
        None => quote!(::core::option::Option::None),
    };
    let provenance = provenance(&private, ident.span());
    let name = &entry.name;
    let description = &entry.description;
    let declaration = match entry.kind {
        Kind::Resource => {
            let uri = &entry.uri;
            let mime = &entry.mime_type;
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
            let arguments = entry.params.iter().map(|param| {
                let key = &param.key;
                let text = &param.description;
                let required = !param.optional;
                quote! {
                    #private::PromptArgumentDecl { name: #key, description: #text, required: #required }
                }
            });
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

/// The reader (`ReadFn`) or getter (`GetFn`): the values by name to the function's answer.
///
/// Its locals are the expansion's own (mixed-site, `__hermes_arg_0`...), never the
/// parameters' names, and the handler's name is derived from the function's, so it can never
/// be the function's: a parameter or function named like anything here (`fn day(day:
/// String)`, `fn __hermes_values()`) cannot shadow the function the handler calls.
fn handler(entry: &Entry, private: &TokenStream) -> TokenStream {
    let ident = &entry.ident;
    let values = local("__hermes_values");
    let args: Vec<_> = (0..entry.params.len())
        .map(|index| local(&format!("__hermes_arg_{index}")))
        .collect();
    let reads = entry.params.iter().zip(&args).map(|(param, arg)| {
        let key = &param.key;
        if param.optional {
            quote!(let #arg = #private::prompt_argument(#values, #key);)
        } else {
            quote!(let #arg = #private::prompt_argument(#values, #key).unwrap_or_default();)
        }
    });
    let (convert, body_type) = body(entry.kind, private);
    let call = if entry.is_async {
        quote!(::std::boxed::Box::pin(async move { #convert(#ident(#(#args),*).await) }))
    } else {
        quote!(::std::boxed::Box::pin(::core::future::ready(#convert(#ident(#(#args),*)))))
    };
    let handler = item_ident(ident, "handler");
    quote! {{
        fn #handler(
            #values: &[(::std::string::String, ::std::string::String)],
        ) -> #private::BoxFuture<'static, ::core::result::Result<#body_type, ::std::string::String>> {
            #(#reads)*
            #call
        }
        #handler
    }}
}

/// The conversion of the function's answer, and the body it gives.
fn body(kind: Kind, private: &TokenStream) -> (TokenStream, TokenStream) {
    match kind {
        Kind::Resource => (
            quote!(#private::IntoResource::into_resource),
            quote!(#private::ResourceBody),
        ),
        Kind::Prompt => (
            quote!(#private::IntoPrompt::into_prompt),
            quote!(#private::Prompt),
        ),
    }
}

/// The expansion with errors: the errors, the function (so its body is still checked and its
/// callers resolve) and, for a free function, a placeholder `FOO_RESOURCE` / `FOO_PROMPT`
/// outside the slice, so that code naming it gets no second error. Its handler answers an
/// error; it is never served.
pub fn fallback(entry: &Entry, function: &ItemFn, errors: syn::Error) -> TokenStream {
    let kind = entry.kind;
    fallback_with(
        &entry.krate,
        function,
        errors,
        kind.suffix(),
        |private, provenance| {
            let (_, body_type) = body(kind, private);
            let message = format!("this {} failed to compile", kind.noun());
            let handler = quote! {{
                fn __hermes_failed(
                    _: &[(::std::string::String, ::std::string::String)],
                ) -> #private::BoxFuture<'static, ::core::result::Result<#body_type, ::std::string::String>> {
                    ::std::boxed::Box::pin(::core::future::ready(::core::result::Result::Err(
                        ::std::string::String::from(#message),
                    )))
                }
                __hermes_failed
            }};
            let fields = match kind {
                Kind::Resource => quote! {
                    uri: "",
                    name: "",
                    description: "",
                    mime_type: "",
                    read: #handler,
                },
                Kind::Prompt => quote! {
                    name: "",
                    description: "",
                    arguments: &[],
                    get: #handler,
                },
            };
            let decl = format_ident!("{}", kind.decl());
            let value = quote! {
                #private::#decl {
                    #fields
                    complete: ::core::option::Option::None,
                    provenance: #provenance,
                }
            };
            (quote!(#private::#decl), value)
        },
    )
}
