//! Code generation. Everything here was validated by [`crate::model`]; nothing is checked.
//!
//! For `#[tool] fn foo(...)` the expansion is, beside the untouched function, one static `FOO_TOOL`
//! in the `TOOLS` distributed slice (unless the tool is `unlisted`: a plugin registers it
//! itself), with the function's visibility. Its initializer block holds the argument struct
//! and the wrapper, so neither leaks into the module. (A type named `foo` would be shorter to
//! write but clashes with a module `foo`, the usual home of a tool `foo`.)
//!
//! Generated code is compiled once per tool, so it is kept to what only this tool can say:
//! the struct's fields, one `visit_map` body, the call. Everything generic (parsing the
//! argument text, the schema, the parse-only check, reading keys, missing and duplicate
//! fields) is a runtime function named by path, compiled once per type or once per crate:
//! the struct derives `JsonSchema` (the schema must be exactly schemars') but not serde's
//! `Deserialize`, whose field enum, visitor and `visit_seq` are written per struct.
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
        raw_output,
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
    let parallel = match tool.parallel {
        Some(parallel) => quote!(::core::option::Option::Some(#parallel)),
        None => quote!(::core::option::Option::None),
    };
    let provenance = provenance(private, tool.ident.span());

    quote! {{
        #args_struct

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
            raw_output: #raw_output,
            annotations: #private::Annotations {
                read_only: #read_only,
                destructive: #destructive,
                parallel: #parallel,
            },
            clamped: &[#(#clamped),*],
            validate: #validate,
            schema: #private::schema_for::<#args_ty>,
            handler: #handler,
            // The wrapper's own parse (`parse_arguments`), without the call.
            parse: #private::parse_only::<#args_ty>,
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
    let schemars_crate = quote!(#private::schemars).to_string();
    let mut defaults = Vec::new();
    let args: Vec<_> = tool
        .params
        .iter()
        .filter_map(|param| match &param.kind {
            ParamKind::Arg(arg) => Some((param, &**arg)),
            _ => None,
        })
        .collect();
    let fields = args
        .iter()
        .map(|(param, arg)| field(param, arg, &mut defaults))
        .collect::<Vec<_>>();
    let deserialize = deserialize_impl(&args, private);
    // `#[serde(...)]` is read by schemars' derive (names, defaults, `additionalProperties`);
    // the deserialization that honours the same attributes is `deserialize_impl`'s.
    quote! {
        #[derive(#private::schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        #[schemars(crate = #schemars_crate)]
        #[allow(non_camel_case_types, non_snake_case, dead_code)]
        struct __HermesArgs {
            #(#fields,)*
        }
        #(#defaults)*
        #deserialize
    }
}

/// `Deserialize` for the argument struct through `args::FromArguments`: a loop over the
/// object's entries that fills one slot per parameter, then the struct from the slots. Keys,
/// duplicates and missing values are the runtime's (`__private::args`), shared by all tools.
fn deserialize_impl(args: &[(&Param, &ArgParam)], private: &TokenStream) -> TokenStream {
    let de = quote!(#private::args);
    let names: Vec<_> = args.iter().map(|(_, arg)| &arg.json_name).collect();
    let slots: Vec<_> = (0..args.len())
        .map(|i| format_ident!("__hermes_{i}"))
        .collect();
    let arms = args
        .iter()
        .zip(&slots)
        .enumerate()
        .map(|(i, ((_, arg), slot))| {
            let name = &arg.json_name;
            // The last arm is `_`, so that the match on an index is exhaustive.
            let index = if i + 1 == args.len() {
                quote!(_)
            } else {
                quote!(#i)
            };
            // Spanned at the type: a type serde cannot read is reported there.
            let next = quote_spanned! {arg.ty.span()=>
                #de::next(&mut #slot, &mut __hermes_map, #name)?
            };
            quote!(#index => #next,)
        });
    let inits = args.iter().zip(&slots).map(|((param, arg), slot)| {
        let ident = &param.ident;
        let name = &arg.json_name;
        let value = match &arg.attr.default {
            Some(_) => {
                let default = default_fn(ident);
                quote!(match #slot {
                    ::core::option::Option::Some(value) => value,
                    ::core::option::Option::None => #default(),
                })
            }
            None => quote!(#de::take(#slot, #name)?),
        };
        quote!(#ident: #value)
    });
    let body = if args.is_empty() {
        // Every key is unknown: the first one is an error.
        quote!(while __hermes_map.next_key_seed(#de::Key(&[]))?.is_some() {})
    } else {
        quote! {
            while let ::core::option::Option::Some(__hermes_key) =
                __hermes_map.next_key_seed(#de::Key(&[#(#names),*]))?
            {
                match __hermes_key {
                    #(#arms)*
                }
            }
        }
    };
    quote! {
        impl<'de> #private::serde::Deserialize<'de> for __HermesArgs {
            fn deserialize<D: #private::serde::Deserializer<'de>>(
                __hermes_deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #de::deserialize(__hermes_deserializer)
            }
        }

        impl #de::FromArguments for __HermesArgs {
            fn from_map<'de, A: #private::serde::de::MapAccess<'de>>(
                mut __hermes_map: A,
            ) -> ::core::result::Result<Self, A::Error> {
                #(let mut #slots = ::core::option::Option::None;)*
                #body
                ::core::result::Result::Ok(Self { #(#inits,)* })
            }
        }
    }
}

/// `__hermes_default_foo`, the function giving parameter `foo`'s `#[arg(default = ...)]`.
fn default_fn(ident: &Ident) -> Ident {
    format_ident!(
        "__hermes_default_{}",
        ident.to_string().trim_start_matches("r#")
    )
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
        let function = default_fn(ident);
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
    // The one deserialization of the arguments (`parse` is the same function, without the call).
    let args_ty = args_type(tool);
    let parse = quote!(#private::parse_arguments::<#args_ty>(__hermes_text)?);
    let destructure = match tool
        .params
        .iter()
        .find(|p| matches!(p.kind, ParamKind::Args(_)))
    {
        Some(param) => {
            let ident = &param.ident;
            quote!(let #ident = #parse;)
        }
        None => quote!(let __HermesArgs { #(#arg_idents),* } = #parse;),
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
