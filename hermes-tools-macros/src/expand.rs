//! Code generation. Everything here was validated by [`crate::model`]; nothing is checked.
//!
//! For `#[tool] fn foo(...)` the expansion is, beside the untouched function, one static `FOO_TOOL`
//! in the `TOOLS` distributed slice (unless the tool is `unlisted`: a plugin registers it
//! itself), with the function's visibility. Its initializer block holds
//! the argument struct, the schema function, the one parse of the arguments and the wrapper,
//! so none of them leak into the module. (A type named `foo` would be shorter to write but
//! clashes with a module `foo`, the usual home of a tool `foo`.)
//!
//! Runtime items are named only through `#krate::__private` (and the exported `__answer!`).
//! With errors, [`fallback`] emits the function and a placeholder `FOO_TOOL` instead.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Path};

use crate::model::{ArgParam, Param, ParamKind, Tool};

pub fn expand(tool: &Tool, function: &ItemFn) -> TokenStream {
    let krate = &tool.krate;
    let private = quote!(#krate::__private);
    let ident = &tool.ident;
    let vis = &function.vis;
    let static_ident = static_ident(ident, "TOOL");
    let decl = declaration(tool, &private);
    let doc = format!(
        "The `#[tool]` declaration of [`{ident}`], as registered in the linked slice of tools."
    );

    // An unlisted tool is not collected at link time: its owner (a plugin) registers it.
    let collect = (!tool.unlisted).then(|| {
        quote! {
            #[#private::linkme::distributed_slice(#private::TOOLS)]
            #[linkme(crate = #private::linkme)]
        }
    });

    quote! {
        #function

        #[doc = #doc]
        #[allow(non_upper_case_globals)]
        #collect
        #vis static #static_ident: #private::ToolDecl = #decl;
    }
}

/// The expansion when the tool has errors: the errors, the function (so its body is still
/// checked and its callers resolve) and, for a free function, a `FOO_TOOL` placeholder outside
/// the slice, so that code naming `FOO_TOOL` gets no second error.
pub fn fallback(krate: &Path, function: &ItemFn, errors: syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    // A method cannot be a tool, and an impl block cannot hold a static.
    let is_free = !matches!(function.sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
    let placeholder = is_free.then(|| {
        let private = quote!(#krate::__private);
        let ident = &function.sig.ident;
        let vis = &function.vis;
        let static_ident = static_ident(ident, "TOOL");
        let provenance = provenance(&private, ident.span());
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals, dead_code)]
            #vis static #static_ident: #private::ToolDecl =
                #private::ToolDecl::placeholder(#provenance);
        }
    });
    quote! {
        #errors
        #function
        #placeholder
    }
}

/// `FOO_TOOL` / `FOO_PLUGIN` for a function `foo` (or `r#foo`).
pub fn static_ident(ident: &Ident, suffix: &str) -> Ident {
    format_ident!(
        "{}_{suffix}",
        ident.to_string().trim_start_matches("r#").to_uppercase()
    )
}

/// Where a declaration is: the one `Provenance` expression of every expansion, with the line
/// of `span` (the function's name).
pub fn provenance(private: &TokenStream, span: Span) -> TokenStream {
    let line = quote_spanned!(span=> ::core::line!());
    quote! {
        #private::Provenance::declared(
            ::core::env!("CARGO_CRATE_NAME"),
            ::core::module_path!(),
            ::core::file!(),
            #line,
        )
    }
}

fn declaration(tool: &Tool, private: &TokenStream) -> TokenStream {
    let Tool {
        name,
        toolset,
        emoji,
        description,
        overrides,
        blocking,
        validate,
        clamped,
        ..
    } = tool;
    let args_struct = args_struct(tool, private);
    let args_ty = args_type(tool);
    let wrapper = wrapper(tool, private);
    let handler = if tool.is_async {
        quote!(#private::StaticHandler::Async(__hermes_call))
    } else {
        quote!(#private::StaticHandler::Sync(__hermes_call))
    };
    let check = match &tool.check {
        // A typed `let` spanned at the user's path: a wrong signature is one E0308 on the path.
        Some(path) => quote_spanned! {path.span()=>
            ::core::option::Option::Some({ let check: fn() -> bool = #path; check })
        },
        None => quote!(::core::option::Option::None),
    };
    let dynamic_schema = match &tool.dynamic_schema {
        Some(path) => quote_spanned! {path.span()=>
            ::core::option::Option::Some({
                let dynamic_schema: fn(&#private::SchemaContext<'_>) -> #private::SchemaOverride = #path;
                dynamic_schema
            })
        },
        None => quote!(::core::option::Option::None),
    };
    let max_result_chars = match tool.max_result_chars {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let requires_env = &tool.requires_env;
    let timeout_secs = match tool.timeout_secs {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let needs_approval = tool.needs_approval;
    let (read_only, destructive) = (tool.read_only, tool.destructive);
    let provenance = provenance(private, tool.ident.span());

    quote! {{
        #args_struct

        fn __hermes_schema() -> #private::serde_json::Value {
            #private::schema_for::<#args_ty>()
        }

        // The one deserialization of the arguments: the wrapper's, and `parse`'s.
        fn __hermes_parse(
            __hermes_text: &str,
        ) -> ::core::result::Result<#args_ty, #private::ArgumentsRejected> {
            #private::parse_arguments::<#args_ty>(__hermes_text)
        }

        fn __hermes_parse_only(
            __hermes_text: &str,
        ) -> ::core::result::Result<(), #private::ArgumentsRejected> {
            __hermes_parse(__hermes_text).map(::core::mem::drop)
        }

        #wrapper

        #private::ToolDecl {
            name: #name,
            toolset: #toolset,
            description: #description,
            emoji: #emoji,
            check: #check,
            requires_env: &[#(#requires_env),*],
            max_result_chars: #max_result_chars,
            dynamic_schema: #dynamic_schema,
            overrides: #overrides,
            timeout_secs: #timeout_secs,
            needs_approval: #needs_approval,
            blocking: #blocking,
            annotations: #private::Annotations {
                read_only: #read_only,
                destructive: #destructive,
            },
            clamped: &[#(#clamped),*],
            validate: #validate,
            schema: __hermes_schema,
            handler: #handler,
            parse: __hermes_parse_only,
            provenance: #provenance,
        }
    }}
}

fn args_type(tool: &Tool) -> TokenStream {
    match tool.params.iter().find_map(|p| match &p.kind {
        ParamKind::Args(ty) => Some(ty),
        _ => None,
    }) {
        Some(ty) => quote!(#ty),
        None => quote!(__HermesArgs),
    }
}

/// The struct the model's arguments deserialize into (not generated with `#[args]`).
fn args_struct(tool: &Tool, private: &TokenStream) -> TokenStream {
    if tool
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Args(_)))
    {
        return TokenStream::new();
    }
    let serde_crate = quote!(#private::serde).to_string();
    let schemars_crate = quote!(#private::schemars).to_string();
    let mut defaults = Vec::new();
    let fields = tool.params.iter().filter_map(|param| match &param.kind {
        ParamKind::Arg(arg) => Some(field(param, arg, &mut defaults)),
        _ => None,
    });
    let fields: Vec<_> = fields.collect();
    quote! {
        #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #[schemars(crate = #schemars_crate)]
        #[allow(non_camel_case_types, non_snake_case, dead_code)]
        struct __HermesArgs {
            #(#fields,)*
        }
        #(#defaults)*
    }
}

fn field(param: &Param, arg: &ArgParam, defaults: &mut Vec<TokenStream>) -> TokenStream {
    let ident = &param.ident;
    let ty = &arg.ty;
    let doc = arg.description.as_ref().map(|text| quote!(#[doc = #text]));
    let rename = arg
        .attr
        .rename
        .as_ref()
        .map(|name| quote!(#[serde(rename = #name)]));
    let default = arg.attr.default.as_ref().map(|expr| {
        let function = format_ident!(
            "__hermes_default_{}",
            ident.to_string().trim_start_matches("r#")
        );
        let function_name = function.to_string();
        // A string literal converts (`String`, `PathBuf`); anything else is typed by the field.
        let value = match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(_),
                ..
            }) => {
                quote!(::core::convert::From::from(#expr))
            }
            _ => quote!(#expr),
        };
        defaults.push(quote_spanned! {expr.span()=>
            #[allow(non_snake_case)]
            fn #function() -> #ty { #value }
        });
        quote!(#[serde(default = #function_name)])
    });
    let mut extend = Vec::new();
    let mut keyword = |key: &str, value: TokenStream| {
        extend.push(quote!(#[schemars(extend(#key = #value))]));
    };
    let a = &arg.attr;
    if let Some(n) = &a.max_items {
        keyword("maxItems", quote!(#n));
    }
    if let Some(n) = &a.min_items {
        keyword("minItems", quote!(#n));
    }
    if let Some(n) = &a.max_length {
        keyword("maxLength", quote!(#n));
    }
    if let Some(n) = &a.min_length {
        keyword("minLength", quote!(#n));
    }
    if let Some(n) = &a.minimum {
        keyword("minimum", quote!(#n));
    }
    if let Some(n) = &a.maximum {
        keyword("maximum", quote!(#n));
    }
    if let Some(pattern) = &a.pattern {
        keyword("pattern", quote!(#pattern));
    }
    quote! {
        #doc
        #rename
        #default
        #(#extend)*
        #ident: #ty
    }
}

/// The wrapper: parse the arguments, fill injected parameters, call, convert the answer.
fn wrapper(tool: &Tool, private: &TokenStream) -> TokenStream {
    let krate = &tool.krate;
    let function = &tool.ident;
    let name = &tool.name;
    let arg_idents: Vec<_> = tool
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Arg(_)))
        .map(|p| &p.ident)
        .collect();
    let destructure = match tool
        .params
        .iter()
        .find(|p| matches!(p.kind, ParamKind::Args(_)))
    {
        Some(param) => {
            let ident = &param.ident;
            quote!(let #ident = __hermes_parse(__hermes_text)?;)
        }
        None => {
            quote!(let __HermesArgs { #(#arg_idents),* } = __hermes_parse(__hermes_text)?;)
        }
    };
    // `&T` is filled by type through autoref specialisation: the context itself when `T` is
    // `ToolContext` (however it is named), else the context's extension of type `T`. The
    // call is spanned at the type, so a type that cannot be an extension is reported there.
    let injections: Vec<_> = tool
        .params
        .iter()
        .filter_map(|param| {
            let ident = &param.ident;
            match &param.kind {
                ParamKind::Injected(ty) => {
                    let param_name = ident.to_string();
                    let get = inject(private, ty);
                    Some(quote! {
                        let #ident: &#ty = match #get {
                            ::core::option::Option::Some(value) => value,
                            ::core::option::Option::None => {
                                return #private::missing_extension(
                                    #name,
                                    #param_name,
                                    ::core::any::type_name::<#ty>(),
                                );
                            }
                        };
                    })
                }
                ParamKind::OptionalInjected(ty) => {
                    let get = inject(private, ty);
                    Some(quote!(let #ident: ::core::option::Option<&#ty> = #get;))
                }
                ParamKind::Arg(_) | ParamKind::Args(_) => None,
            }
        })
        .collect();
    // Which of the two traits is used depends on the types: allow either to go unused.
    let uses = (!injections.is_empty()).then(|| {
        quote! {
            #[allow(unused_imports)]
            use #private::{InjectContext as _, InjectExtension as _};
        }
    });
    let call_args = tool.params.iter().map(|p| &p.ident);

    if tool.is_async {
        quote! {
            fn __hermes_call(
                __hermes_text: &str,
                __hermes_ctx: &#private::ToolContext,
            ) -> ::core::result::Result<
                #private::BoxFuture<'static, #private::ToolAnswer>,
                #private::ArgumentsRejected,
            > {
                #uses
                #destructure
                let __hermes_ctx = ::core::clone::Clone::clone(__hermes_ctx);
                ::core::result::Result::Ok(::std::boxed::Box::pin(async move {
                    let __hermes_ctx = &__hermes_ctx;
                    #(#injections)*
                    let __hermes_result = #function(#(#call_args),*).await;
                    #krate::__answer!(__hermes_result)
                }))
            }
        }
    } else {
        quote! {
            fn __hermes_call(
                __hermes_text: &str,
                __hermes_ctx: &#private::ToolContext,
            ) -> ::core::result::Result<#private::ToolAnswer, #private::ArgumentsRejected> {
                #uses
                #destructure
                let __hermes_answer = (|| {
                    #(#injections)*
                    let __hermes_result = #function(#(#call_args),*);
                    #krate::__answer!(__hermes_result)
                })();
                ::core::result::Result::Ok(__hermes_answer)
            }
        }
    }
}

/// `Option<&T>` from the context, chosen by type. Two `&`: `InjectContext` is implemented for
/// `&Inject<ToolContext>`, so its `&self` matches the receiver `&&Inject<_>` before
/// autoderef reaches `InjectExtension`'s `&Inject<T>`; with one `&`, the extension impl would
/// match first for every `T`, the context included.
fn inject(private: &TokenStream, ty: &syn::Type) -> TokenStream {
    let ctx = quote!(__hermes_ctx);
    quote_spanned! {ty.span()=>
        (&&#private::Inject::<#ty>::new()).get(#ctx)
    }
}
