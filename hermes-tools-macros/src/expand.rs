//! Code generation. Everything here was validated by [`crate::model`]; nothing is checked.
//!
//! For `#[tool] fn foo(...)` the expansion is, beside the untouched function, one static `FOO_TOOL`
//! in the `TOOLS` distributed slice (unless the tool is `unlisted`: a plugin registers it
//! itself), with the function's visibility. Its initializer block holds
//! the argument struct, the schema function and the wrapper, so none of them leak into the
//! module. (A type named `foo` would be shorter to write but clashes with a module `foo`, the
//! usual home of a tool `foo`.)

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::model::{ArgParam, Param, ParamKind, Tool};

pub fn expand(tool: &Tool, function: &ItemFn) -> TokenStream {
    let krate = &tool.krate;
    let private = quote!(#krate::__private);
    let ident = &tool.ident;
    let vis = &function.vis;
    let static_ident = format_ident!(
        "{}_TOOL",
        ident.to_string().trim_start_matches("r#").to_uppercase()
    );
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
        #vis static #static_ident: #krate::ToolDecl = #decl;
    }
}

fn declaration(tool: &Tool, private: &TokenStream) -> TokenStream {
    let krate = &tool.krate;
    let Tool {
        name,
        toolset,
        emoji,
        description,
        overrides,
        ..
    } = tool;
    let args_struct = args_struct(tool, private);
    let args_ty = args_type(tool);
    let wrapper = wrapper(tool, private, &args_ty);
    let handler = if tool.is_async {
        quote!(#krate::StaticHandler::Async(__hermes_call))
    } else {
        quote!(#krate::StaticHandler::Sync(__hermes_call))
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
                let dynamic_schema: fn(&#krate::SchemaContext<'_>) -> #krate::SchemaOverride = #path;
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
    let line = quote_spanned!(tool.ident.span()=> ::core::line!());

    quote! {{
        #args_struct

        fn __hermes_schema() -> #private::serde_json::Value {
            #private::schema::generate::<#args_ty>()
        }

        #wrapper

        #krate::ToolDecl {
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
            annotations: #krate::Annotations {
                read_only: #read_only,
                destructive: #destructive,
            },
            schema: __hermes_schema,
            handler: #handler,
            provenance: #krate::Provenance {
                crate_name: ::std::borrow::Cow::Borrowed(::core::env!("CARGO_CRATE_NAME")),
                module_path: ::std::borrow::Cow::Borrowed(::core::module_path!()),
                file: ::std::borrow::Cow::Borrowed(::core::file!()),
                line: #line,
            },
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
        #[serde(crate = #serde_crate)]
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
fn wrapper(tool: &Tool, private: &TokenStream, args_ty: &TokenStream) -> TokenStream {
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
            quote!(let #ident: #args_ty = __hermes_args.parse::<#args_ty>()?;)
        }
        None => {
            quote!(let __HermesArgs { #(#arg_idents),* } = __hermes_args.parse::<__HermesArgs>()?;)
        }
    };
    let injections: Vec<_> = tool
        .params
        .iter()
        .filter_map(|param| {
            let ident = &param.ident;
            match &param.kind {
                ParamKind::Context => Some(quote!(let #ident: &#krate::ToolContext = __hermes_ctx;)),
                ParamKind::Extension(ty) => {
                    let param_name = ident.to_string();
                    Some(quote! {
                        let #ident: &#ty = match __hermes_ctx.extension::<#ty>() {
                            ::core::option::Option::Some(value) => value,
                            ::core::option::Option::None => {
                                return #private::missing_extension(#name, #param_name, ::core::any::type_name::<#ty>());
                            }
                        };
                    })
                }
                ParamKind::OptionalExtension(ty) => {
                    Some(quote!(let #ident: ::core::option::Option<&#ty> = __hermes_ctx.extension::<#ty>();))
                }
                ParamKind::Arg(_) | ParamKind::Args(_) => None,
            }
        })
        .collect();
    let call_args = tool.params.iter().map(|p| &p.ident);

    if tool.is_async {
        quote! {
            fn __hermes_call(
                __hermes_args: #krate::Arguments<'_>,
                __hermes_ctx: &#krate::ToolContext,
            ) -> ::core::result::Result<#private::BoxFuture<'static, #krate::ToolAnswer>, #krate::ArgumentsRejected> {
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
                __hermes_args: #krate::Arguments<'_>,
                __hermes_ctx: &#krate::ToolContext,
            ) -> ::core::result::Result<#krate::ToolAnswer, #krate::ArgumentsRejected> {
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
