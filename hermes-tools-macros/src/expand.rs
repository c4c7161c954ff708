//! Code generation. Everything here was validated by [`crate::model`]; nothing is checked.
//!
//! For `#[tool] fn foo(...)` the expansion is, beside the untouched function, one static `FOO_TOOL`
//! in the `TOOLS` distributed slice (unless the tool is `unlisted`: a plugin registers it
//! itself), with the function's visibility. Its initializer block holds the parsing function,
//! the schema table and the wrapper, so none leaks into the module. (A type named `foo` would
//! be shorter to write but clashes with a module `foo`, the usual home of a tool `foo`.)
//!
//! Generated code is compiled once per tool, so it is kept to what only this tool can say,
//! mostly as data: the parameters' names and defaults, a table of their schemas' fields, the
//! call. No type is declared per tool (an argument struct would bring its own `Deserialize`
//! and `JsonSchema`, and its own instantiations of serde_json and schemars): the runtime's
//! `args::parse` reads the values into the cons list of the parameter types (compiled once
//! per list of types), and `args::schema` builds schemars' schema from the table (generic only
//! per field type). An `#[args]` struct keeps its own derives.
//!
//! Runtime items are named only through `#krate::__private` (and the exported `__answer!`).
//! With errors, [`fallback`] emits the function and a placeholder `FOO_TOOL` instead.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
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

/// The expansion when the tool has errors: the errors, the function, and a `FOO_TOOL`
/// placeholder (see [`fallback_with`]).
pub fn fallback(krate: &Path, function: &ItemFn, errors: syn::Error) -> TokenStream {
    fallback_with(krate, function, errors, "TOOL", |private, provenance| {
        (
            quote!(#private::ToolDecl),
            quote!(#private::ToolDecl::placeholder(#provenance)),
        )
    })
}

/// The expansion with errors, for every attribute: the errors, the function (so its body is
/// still checked and its callers resolve) and, for a free function, a placeholder static
/// `FOO_<suffix>` outside the slice, so that code naming it gets no second error. `declare`
/// gives the static's type and value from the runtime's `__private` path and the provenance.
pub fn fallback_with(
    krate: &Path,
    function: &ItemFn,
    errors: syn::Error,
    suffix: &str,
    declare: impl FnOnce(&TokenStream, TokenStream) -> (TokenStream, TokenStream),
) -> TokenStream {
    let errors = errors.to_compile_error();
    // A method cannot be declared so, and an impl block cannot hold a static.
    let is_free = !matches!(function.sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
    let placeholder = is_free.then(|| {
        let private = quote!(#krate::__private);
        let ident = &function.sig.ident;
        let vis = &function.vis;
        let static_ident = static_ident(ident, suffix);
        let (ty, value) = declare(&private, provenance(&private, ident.span()));
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals, dead_code)]
            #vis static #static_ident: #ty = #value;
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
    format_ident!("{}_{suffix}", ident.unraw().to_string().to_uppercase())
}

/// A local of the expansion (`__hermes_text`, `__hermes_arg_0`...), mixed-site: hygienic as a
/// `macro_rules!` local, so no name the user writes (the function's, a parameter's, a path in
/// an attribute) can see it, whatever it is named.
pub fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// A [`local`] whose errors point at `span`.
pub fn local_at(name: &str, span: Span) -> Ident {
    Ident::new(name, Span::mixed_site().located_at(span))
}

/// An item the expansion declares in a declaration's block beside the call of the function
/// `function`: `__hermes_{role}_{function}`. Items are not hygienic (mixed-site or not), but a
/// name derived from the function's, and longer, is never the function's: `#[tool] fn
/// __hermes_call(...)` still calls itself, not the wrapper.
pub fn item_ident(function: &Ident, role: &str) -> Ident {
    format_ident!("__hermes_{role}_{}", function.unraw())
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
        task,
        raw_output,
        validate,
        clamped,
        ..
    } = tool;
    let arguments = arguments(tool, private);
    let wrapper = wrapper(tool, private, &arguments);
    let call = item_ident(&tool.ident, "call");
    let handler = if tool.is_async {
        quote!(#private::StaticHandler::Async(#call))
    } else {
        quote!(#private::StaticHandler::Sync(#call))
    };
    let check = match &tool.check {
        // A typed `let` spanned at the user's path: a wrong signature is one E0308 on the path.
        Some(path) => {
            let check = local_at("__hermes_check", path.span());
            quote_spanned! {path.span()=>
                ::core::option::Option::Some({
                    let #check: fn() -> ::core::primitive::bool = #path;
                    #check
                })
            }
        }
        None => quote!(::core::option::Option::None),
    };
    let config_check = match &tool.config_check {
        Some(path) => {
            let config_check = local_at("__hermes_config_check", path.span());
            quote_spanned! {path.span()=>
                ::core::option::Option::Some({
                    let #config_check: fn(&#private::Config) -> ::core::result::Result<::core::option::Option<::std::string::String>, ::std::string::String> = #path;
                    #config_check
                })
            }
        }
        None => quote!(::core::option::Option::None),
    };
    let dynamic_schema = match &tool.dynamic_schema {
        Some(path) => {
            let dynamic_schema = local_at("__hermes_dynamic_schema", path.span());
            quote_spanned! {path.span()=>
                ::core::option::Option::Some({
                    let #dynamic_schema: fn(&#private::SchemaContext<'_>) -> #private::SchemaOverride = #path;
                    #dynamic_schema
                })
            }
        }
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
    let (ack_rules, ack_reasons): (Vec<&String>, Vec<&String>) = tool
        .acknowledged
        .iter()
        .map(|(rule, reason)| (rule, reason))
        .unzip();
    let output_schema = output_schema(private, tool.output.as_ref());
    let Arguments {
        items: arguments_items,
        parse_only,
        schema,
        ..
    } = &arguments;

    quote! {{
        #arguments_items

        #wrapper

        #private::ToolDecl {
            name: #name,
            toolset: #toolset,
            description: #description,
            emoji: #emoji,
            check: #check,
            config_check: #config_check,
            requires_env: &[#(#requires_env),*],
            max_result_chars: #max_result_chars,
            dynamic_schema: #dynamic_schema,
            overrides: #overrides,
            timeout_secs: #timeout_secs,
            needs_approval: #needs_approval,
            blocking: #blocking,
            task: #task,
            raw_output: #raw_output,
            annotations: #private::Annotations {
                read_only: #read_only,
                destructive: #destructive,
                parallel: #parallel,
            },
            clamped: &[#(#clamped),*],
            validate: #validate,
            schema: #schema,
            output_schema: #output_schema,
            handler: #handler,
            // The wrapper's own parse (`__hermes_parse_foo` or `parse_arguments`), without the call.
            parse: #parse_only,
            provenance: #provenance,
            acknowledged: &[#((#ack_rules, #ack_reasons)),*],
        }
    }}
}

/// The probe of the tool's output schema: the JSON Schema of what it answers when that is a
/// `JsonSchema` object type (`T` or `Result<T, E>`), chosen by autoref specialisation.
fn output_schema(private: &TokenStream, output: Option<&syn::Type>) -> TokenStream {
    let Some(ty) = output else {
        return quote!(::core::option::Option::None);
    };
    quote! {{
        fn __hermes_output_schema() -> ::core::option::Option<#private::serde_json::Value> {
            #[allow(unused_imports)]
            use #private::{NoOutputSchema as _, OutputSchemaOf as _, OutputSchemaOfOk as _};
            (&&&#private::OutputProbe::<#ty>::new()).__hermes_output_schema()
        }
        ::core::option::Option::Some(__hermes_output_schema)
    }}
}

/// The `#[args]` struct's type, if the tool takes one.
fn args_struct_type(tool: &Tool) -> Option<&syn::Type> {
    tool.params.iter().find_map(|p| match &p.kind {
        ParamKind::Args(ty) => Some(ty),
        _ => None,
    })
}

/// The parameters the model fills, in order, each with its place among all parameters.
fn model_args(tool: &Tool) -> Vec<(usize, &Param, &ArgParam)> {
    tool.params
        .iter()
        .enumerate()
        .filter_map(|(index, param)| match &param.kind {
            ParamKind::Arg(arg) => Some((index, param, &**arg)),
            _ => None,
        })
        .collect()
}

/// The wrapper's local for the parameter at `index`: `__hermes_arg_{index}`, never the
/// parameter's own name, which may be the function's (`fn echo(echo: String)`) or one of the
/// wrapper's (`__hermes_ctx`).
fn binding(index: usize) -> Ident {
    local(&format!("__hermes_arg_{index}"))
}

/// What the wrapper and the declaration use to read and describe the arguments.
///
/// With `#[args]`, the user's type and its own derives. Otherwise no type at all: the values
/// are read into the cons list `(A, (B, ()))` of the parameter types by the runtime's
/// `args::parse` (one instantiation per list of types, shared by every tool whose parameters
/// have the same types), and the schema is built from a table of the fields by `args::schema`
/// (generic only per field type). So a tool adds data and three small functions, not a type
/// with its own `Deserialize`, `JsonSchema` and instantiations of serde_json and schemars.
struct Arguments {
    /// Items of the declaration's block: the default functions, `__hermes_parse_foo`, the
    /// table.
    items: TokenStream,
    /// The expression reading the wrapper's `__hermes_text` (with `?`).
    parse: TokenStream,
    /// The pattern binding its value to the parameters' [`binding`]s.
    pattern: TokenStream,
    /// The declaration's `parse`: a `fn(&str) -> Result<(), ArgumentsRejected>`.
    parse_only: TokenStream,
    /// The declaration's `schema`: a `fn() -> Value`.
    schema: TokenStream,
}

fn arguments(tool: &Tool, private: &TokenStream) -> Arguments {
    let text = local("__hermes_text");
    if let Some(ty) = args_struct_type(tool) {
        let index = tool
            .params
            .iter()
            .position(|p| matches!(p.kind, ParamKind::Args(_)));
        let pattern = index.map(binding);
        return Arguments {
            items: TokenStream::new(),
            parse: quote!(#private::parse_arguments::<#ty>(#text)?),
            pattern: quote!(#pattern),
            parse_only: quote!(#private::parse_only::<#ty>),
            schema: quote!(#private::schema_for::<#ty>),
        };
    }
    let de = quote!(#private::args);
    let function = &tool.ident;
    let args = model_args(tool);
    let names: Vec<_> = args.iter().map(|(_, _, arg)| &arg.json_name).collect();
    let mut defaults = Vec::new();
    let fields: Vec<_> = args
        .iter()
        .map(|(_, param, arg)| field(function, param, arg, private, &mut defaults))
        .collect();
    // The cons lists, built from the end: `(A, (B, ()))` and its patterns and defaults.
    let mut list = quote!(());
    let mut pattern = quote!(());
    let mut default_list = quote!(());
    for (index, param, arg) in args.iter().rev() {
        let ty = &arg.ty;
        let default = match &arg.attr.default {
            Some(_) => {
                let default = default_fn(function, &param.ident);
                quote!(::core::option::Option::Some(#default as fn() -> #ty))
            }
            None => quote!(::core::option::Option::None),
        };
        let binding = binding(*index);
        list = quote!((#ty, #list));
        pattern = quote!((#binding, #pattern));
        default_list = quote!((#default, #default_list));
    }
    let parse = item_ident(function, "parse");
    let table = item_ident(function, "fields");
    let items = quote! {
        #(#defaults)*

        fn #parse(
            #text: &::core::primitive::str,
        ) -> ::core::result::Result<#list, #private::ArgumentsRejected> {
            #de::parse(#text, &[#(#names),*], #default_list)
        }

        #[allow(non_upper_case_globals)]
        const #table: &[#de::Field] = &[#(#fields),*];
    };
    Arguments {
        items,
        parse: quote!(#parse(#text)?),
        pattern,
        // Non-capturing closures: `fn` pointers in the declaration, no named item each.
        parse_only: quote!(|#text| {
            ::core::result::Result::map(#parse(#text), ::core::mem::drop)
        }),
        schema: quote!(|| #de::schema(#table)),
    }
}

/// `__hermes_default_limit_foo`, the function giving parameter `limit`'s `#[arg(default =
/// ...)]` in the tool `foo`.
fn default_fn(function: &Ident, param: &Ident) -> Ident {
    item_ident(function, &format!("default_{}", param.unraw()))
}

/// The title and description schemars' derive reads from a doc comment: a first line
/// starting with `#` is the title, the rest the description (`get_title_and_description`).
/// Split here, at compile time, so the table holds the two strings.
fn title_and_description(doc: &str) -> (&str, &str) {
    let doc = doc.trim_ascii();
    if !doc.starts_with('#') {
        return ("", doc);
    }
    let end = doc.find('\n').unwrap_or(doc.len());
    (
        doc[..end].trim_start_matches('#').trim_ascii(),
        doc[end..].trim_ascii(),
    )
}

/// One `args::Field` of the schema table (and, in `defaults`, the default's function).
fn field(
    function: &Ident,
    param: &Param,
    arg: &ArgParam,
    private: &TokenStream,
    defaults: &mut Vec<TokenStream>,
) -> TokenStream {
    let de = quote!(#private::args);
    let ident = &param.ident;
    let ty = &arg.ty;
    let name = &arg.json_name;
    let (title, description) = title_and_description(arg.description.as_deref().unwrap_or(""));
    let default = match &arg.attr.default {
        Some(expr) => {
            let default_fn = default_fn(function, ident);
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
                fn #default_fn() -> #ty { #value }
            });
            // As schemars' derive: the default's JSON when the type serializes, else none.
            quote!(::core::option::Option::Some(|| {
                #[allow(unused_imports)]
                use #private::schemars::_private::{MaybeSerializeWrapper, NoSerialize as _};
                MaybeSerializeWrapper(#default_fn()).maybe_to_value()
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    let mut extend = Vec::new();
    let mut keyword = |key: &str, value: TokenStream| {
        extend.push(quote! {
            (#key, || #private::serde_json::to_value(&#value).unwrap())
        });
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
    // Spanned at the type: a type without a schema is reported there.
    let schema = quote_spanned!(ty.span()=> #de::field::<#ty>);
    quote! {
        #de::Field {
            name: #name,
            title: #title,
            description: #description,
            schema: #schema,
            default: #default,
            extend: &[#(#extend),*],
        }
    }
}

/// The wrapper: parse the arguments, fill injected parameters, call, convert the answer.
///
/// Every local is the expansion's own ([`local`]) and every parameter's value is bound to its
/// [`binding`], so the only names the user wrote that appear here are the function's and the
/// types: none can be shadowed, nor shadow.
fn wrapper(tool: &Tool, private: &TokenStream, arguments: &Arguments) -> TokenStream {
    let krate = &tool.krate;
    let function = &tool.ident;
    let name = &tool.name;
    let call_fn = item_ident(function, "call");
    let (text, ctx, value) = (
        local("__hermes_text"),
        local("__hermes_ctx"),
        local("__hermes_value"),
    );
    let (result, answer) = (local("__hermes_result"), local("__hermes_answer"));
    // The one deserialization of the arguments (`parse` is the same, without the call).
    let Arguments { parse, pattern, .. } = arguments;
    let destructure = quote!(let #pattern = #parse;);
    // `&T` is filled by type through autoref specialisation: the context itself when `T` is
    // `ToolContext` (however it is named), else the context's extension of type `T`. The
    // call is spanned at the type, so a type that cannot be an extension is reported there.
    let injections: Vec<_> = tool
        .params
        .iter()
        .enumerate()
        .filter_map(|(index, param)| {
            let binding = binding(index);
            match &param.kind {
                ParamKind::Injected(ty) => {
                    let param_name = param.ident.unraw().to_string();
                    let get = inject(private, ty, &ctx);
                    Some(quote! {
                        let #binding: &#ty = match #get {
                            ::core::option::Option::Some(#value) => #value,
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
                    let get = inject(private, ty, &ctx);
                    Some(quote!(let #binding: ::core::option::Option<&#ty> = #get;))
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
    let call_args: Vec<_> = (0..tool.params.len()).map(binding).collect();

    if tool.is_async {
        quote! {
            fn #call_fn(
                #text: &::core::primitive::str,
                #ctx: &#private::ToolContext,
            ) -> ::core::result::Result<
                #private::BoxFuture<'static, #private::ToolAnswer>,
                #private::ArgumentsRejected,
            > {
                #uses
                #destructure
                let #ctx = ::core::clone::Clone::clone(#ctx);
                ::core::result::Result::Ok(::std::boxed::Box::pin(async move {
                    let #ctx = &#ctx;
                    #(#injections)*
                    let #result = #function(#(#call_args),*).await;
                    #krate::__answer!(#result)
                }))
            }
        }
    } else {
        let call = quote! {{
            let #result = #function(#(#call_args),*);
            #krate::__answer!(#result)
        }};
        // A closure only when an injection may `return` its answer early: one type and one
        // body less per tool otherwise.
        let call = if injections.is_empty() {
            call
        } else {
            quote!((|| { #(#injections)* #call })())
        };
        quote! {
            fn #call_fn(
                #text: &::core::primitive::str,
                #ctx: &#private::ToolContext,
            ) -> ::core::result::Result<#private::ToolAnswer, #private::ArgumentsRejected> {
                #uses
                #destructure
                let #answer = #call;
                ::core::result::Result::Ok(#answer)
            }
        }
    }
}

/// `Option<&T>` from the context `ctx`, chosen by type. Two `&`: `InjectContext` is
/// implemented for `&Inject<ToolContext>`, so its `&self` matches the receiver
/// `&&Inject<_>` before autoderef reaches `InjectExtension`'s `&Inject<T>`; with one `&`, the
/// extension impl would match first for every `T`, the context included.
fn inject(private: &TokenStream, ty: &syn::Type, ctx: &Ident) -> TokenStream {
    quote_spanned! {ty.span()=>
        (&&#private::Inject::<#ty>::new()).get(#ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::title_and_description;

    /// As schemars' `get_title_and_description` splits the same doc comments.
    #[test]
    fn a_heading_first_line_is_the_title() {
        assert_eq!(title_and_description("The path."), ("", "The path."));
        assert_eq!(title_and_description("  The path. \n"), ("", "The path."));
        assert_eq!(
            title_and_description("# Title here\n\nThe path."),
            ("Title here", "The path.")
        );
        assert_eq!(
            title_and_description("## Only a title"),
            ("Only a title", "")
        );
        assert_eq!(title_and_description(""), ("", ""));
    }
}
