//! The validated tool: what `#[tool]` understood of the function, ready to expand.

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, ItemFn, LitStr, Pat, Path, PathArguments, Type,
};

use crate::attr::{ARG, ArgAttr, ToolAttr, args_marker, is_parameter_attr};
use crate::bounds;
use crate::check::{self, Ctxt};
use crate::docs;

/// A parameter as written, with the attributes `#[tool]` consumes taken off the function.
pub struct RawParam {
    attrs: Vec<Attribute>,
    arg: FnArg,
}

/// Takes `///`, `#[arg]` and `#[args]` off every parameter of `function`, returning them.
pub fn take_params(function: &mut ItemFn) -> Vec<RawParam> {
    function
        .sig
        .inputs
        .iter_mut()
        .map(|input| {
            let attrs = match input {
                FnArg::Receiver(receiver) => &mut receiver.attrs,
                FnArg::Typed(typed) => &mut typed.attrs,
            };
            let (taken, kept) = std::mem::take(attrs)
                .into_iter()
                .partition(is_parameter_attr);
            *attrs = kept;
            RawParam {
                attrs: taken,
                arg: input.clone(),
            }
        })
        .collect()
}

/// What `#[tool]` understood of the function. Built even when there are errors (they are in
/// the [`Ctxt`]), so that every error is found in one pass; expanded only without errors.
pub struct Tool {
    pub krate: Path,
    pub ident: Ident,
    pub name: String,
    pub toolset: String,
    pub emoji: String,
    pub description: String,
    pub check: Option<Path>,
    pub config_check: Option<Path>,
    pub requires_env: Vec<String>,
    pub max_result_chars: Option<usize>,
    pub dynamic_schema: Option<Path>,
    pub overrides: bool,
    pub timeout_secs: Option<u64>,
    pub needs_approval: bool,
    pub blocking: bool,
    /// An MCP client's call becomes a task at once (`#[tool(task)]`).
    pub task: bool,
    /// Answers reach the model unredacted (`#[tool(raw_output)]`).
    pub raw_output: bool,
    pub read_only: bool,
    pub destructive: bool,
    /// `#[tool(parallel)]` / `#[tool(parallel = false)]`; `None` when not written.
    pub parallel: Option<bool>,
    pub unlisted: bool,
    pub is_async: bool,
    /// The model names of parameters whose bounds clamp (`#[arg(..., clamp)]`).
    pub clamped: Vec<String>,
    /// The lint findings accepted, as (rule, reason).
    pub acknowledged: Vec<(String, String)>,
    /// Whether the runtime validates every call against the schema: see
    /// [`check::serde_judges_as_schema`].
    pub validate: bool,
    pub params: Vec<Param>,
    /// The declared return type, when it can be named in a probe of its output schema (not
    /// `()` and no `impl Trait` in it).
    pub output: Option<Type>,
}

/// One parameter of the function.
pub struct Param {
    pub ident: Ident,
    pub kind: ParamKind,
}

/// How a parameter is filled.
pub enum ParamKind {
    /// One member of the model's argument object.
    Arg(Box<ArgParam>),
    /// The whole argument object (`#[args]`).
    Args(Type),
    /// `&T`: filled from the context by type (`T` is the context itself or an extension the
    /// caller must provide; the runtime tells them apart by type, not by name, so an aliased
    /// `ToolContext` still is the context).
    Injected(Type),
    /// `Option<&T>`: the same, and may be absent.
    OptionalInjected(Type),
}

/// A parameter the model fills.
pub struct ArgParam {
    pub ty: Type,
    /// Its name in the argument object (after `rename`).
    pub json_name: String,
    pub description: Option<String>,
    pub attr: ArgAttr,
}

impl Tool {
    /// Reads the tool from its attribute and function, reporting every error to `cx`.
    pub fn new(cx: &Ctxt, attr: ToolAttr, function: &ItemFn, params: Vec<RawParam>) -> Self {
        let sig = &function.sig;
        let ident = sig.ident.clone();

        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            cx.error_spanned_by(
                &sig.generics,
                "#[tool] functions cannot be generic: the model's arguments need concrete types",
            );
        }
        if let Some(token) = &sig.constness {
            cx.error_at(token.span, "#[tool] does not support `const fn`");
        }
        if let syn::Safety::Unsafe(token) = &sig.safety {
            cx.error_at(
                token.span,
                "#[tool] functions must be safe to call: remove `unsafe`",
            );
        }
        if let Some(abi) = &sig.abi {
            cx.error_at(
                abi.extern_token.span,
                "#[tool] does not support `extern` functions: remove the ABI (the wrapper calls \
                 the function as Rust)",
            );
        }
        let is_async = sig.asyncness.is_some();
        if let (Some(span), true) = (attr.blocking.set_at(), is_async) {
            cx.error_at(
                span,
                "`blocking` is for synchronous tools that may block for long; an `async fn` \
                 must not block: remove `blocking`, or make the function sync",
            );
        }

        let toolset = match &attr.toolset {
            Some(toolset) => {
                cx.ok(check::toolset_name(toolset));
                toolset.value()
            }
            None => {
                if !attr.maybe_written("toolset") {
                    cx.error_at(
                        Span::call_site(),
                        "#[tool] needs a toolset: #[tool(toolset = \"name\")]",
                    );
                }
                String::new()
            }
        };
        let name = match &attr.name {
            Some(name) => {
                cx.ok(check::tool_name(&name.value(), name.span()));
                name.value()
            }
            None => {
                let name = ident.unraw().to_string();
                if !attr.maybe_written("name") {
                    cx.ok(check::tool_name(&name, ident.span()));
                }
                name
            }
        };
        let name_span = attr.name.as_ref().map_or(ident.span(), LitStr::span);
        bounds::tool_name_start(cx, &name, name_span);
        let acknowledged = check::acknowledgements(cx, &attr.acknowledge);
        let emoji = match &attr.emoji {
            Some(emoji) => cx.ok(check::emoji(emoji)).unwrap_or_default(),
            None => "⚡".to_owned(),
        };
        for var in &attr.requires_env {
            cx.ok(check::env_var(var));
        }
        let max_result_chars = attr
            .max_result_chars
            .as_ref()
            .and_then(|lit| cx.ok(check::max_result_chars(lit)));

        if attr.read_only.value && attr.destructive.value {
            cx.error_at(
                Span::call_site(),
                "a tool cannot be both `read_only` and `destructive`: keep the one that is true",
            );
        }
        let timeout_secs = attr
            .timeout_secs
            .as_ref()
            .and_then(|lit| cx.ok(check::timeout_secs(lit)));

        let doc_lines = docs::lines(&function.attrs);
        let fn_docs = docs::split_arguments(&doc_lines);
        let description = match &attr.description {
            Some(text) => non_empty_description(cx, text),
            None => {
                if fn_docs.description.is_empty() && !attr.maybe_written("description") {
                    cx.error_at(
                        ident.span(),
                        "#[tool] functions need a doc comment: it is the description the model \
                         reads (or give `description = \"...\"`)",
                    );
                }
                fn_docs.description.clone()
            }
        };

        let params = parse_params(cx, params, &fn_docs.arguments);
        let clamped = params
            .iter()
            .filter_map(|param| match &param.kind {
                ParamKind::Arg(arg) if arg.attr.clamp.value => Some(arg.json_name.clone()),
                _ => None,
            })
            .collect();
        let validate = params.iter().any(|param| match &param.kind {
            ParamKind::Arg(arg) => !check::serde_judges_as_schema(&arg.ty),
            ParamKind::Args(_) => true,
            ParamKind::Injected(_) | ParamKind::OptionalInjected(_) => false,
        });

        Tool {
            krate: krate(&attr),
            ident,
            name,
            toolset,
            emoji,
            description,
            check: attr.check,
            config_check: attr.config_check,
            requires_env: attr.requires_env.iter().map(LitStr::value).collect(),
            max_result_chars,
            dynamic_schema: attr.dynamic_schema,
            overrides: attr.overrides.value,
            timeout_secs,
            needs_approval: attr.needs_approval.value,
            blocking: attr.blocking.value,
            task: attr.task.value,
            raw_output: attr.raw_output.value,
            read_only: attr.read_only.value,
            destructive: attr.destructive.value,
            parallel: attr.parallel.span.map(|_| attr.parallel.value),
            unlisted: attr.unlisted.value,
            is_async,
            clamped,
            acknowledged,
            validate,
            params,
            output: nameable_output(&sig.output),
        }
    }
}

/// The return type, unless there is none or it holds an `impl Trait`, which cannot be named
/// outside the signature.
fn nameable_output(output: &syn::ReturnType) -> Option<Type> {
    let syn::ReturnType::Type(_, ty) = output else {
        return None;
    };
    fn has_impl(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(ident) => ident == "impl",
            proc_macro2::TokenTree::Group(group) => has_impl(group.stream()),
            _ => false,
        })
    }
    (!has_impl(quote::ToTokens::to_token_stream(&**ty))).then(|| (**ty).clone())
}

/// The path of the runtime crate: `crate = path`, or `::hermes_tools`.
pub fn krate(attr: &ToolAttr) -> Path {
    attr.krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::hermes_tools))
}

fn non_empty_description(cx: &Ctxt, text: &LitStr) -> String {
    let value = text.value().trim().to_owned();
    if value.is_empty() {
        cx.error_at(text.span(), "the description must not be empty");
    }
    value
}

fn parse_params(
    cx: &Ctxt,
    raw: Vec<RawParam>,
    doc_arguments: &BTreeMap<String, String>,
) -> Vec<Param> {
    let mut params = Vec::new();
    let mut args_marker_seen = false;
    let mut json_names: BTreeMap<String, Span> = BTreeMap::new();
    for RawParam { attrs, arg } in raw {
        let typed = match arg {
            FnArg::Receiver(receiver) => {
                cx.error_at(
                    receiver.self_token.span,
                    "#[tool] goes on a free function: `self` parameters are not supported",
                );
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let ident = match &*typed.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => pat.ident.clone(),
            other => {
                cx.error_at(
                    other.span(),
                    "#[tool] parameters must be plain names (`name: Type`), not patterns: the \
                     name is the argument the model sends",
                );
                continue;
            }
        };
        let arg_attr = ArgAttr::from_attrs(cx, &attrs);
        if let Some(marker) = args_marker(&attrs) {
            if args_marker_seen {
                cx.error_spanned_by(
                    marker,
                    "only one parameter can be #[args]: it is the whole argument object",
                );
            }
            args_marker_seen = true;
            reject_arg_attr(cx, &attrs, &ident);
            params.push(Param {
                ident,
                kind: ParamKind::Args((*typed.ty).clone()),
            });
            continue;
        }
        let kind = match classify(&typed.ty) {
            Ok(Some(kind)) => {
                reject_arg_attr(cx, &attrs, &ident);
                kind
            }
            Ok(None) => {
                let json_name = arg_attr
                    .rename
                    .as_ref()
                    .map_or_else(|| ident.unraw().to_string(), LitStr::value);
                // A clash made by a rename is the rename's fault: point there.
                let name_span = arg_attr.rename.as_ref().map_or(ident.span(), LitStr::span);
                if let Some(first) = json_names.insert(json_name.clone(), name_span) {
                    let mut err = syn::Error::new(
                        name_span,
                        format!(
                            "duplicate parameter: the model's argument {json_name:?} is already taken"
                        ),
                    );
                    err.combine(syn::Error::new(first, "first used here"));
                    cx.syn_error(err);
                }
                bounds::parameter_name(cx, &json_name, name_span);
                bounds::arg(cx, &arg_attr);
                if let Some(span) = arg_attr.clamp.set_at()
                    && arg_attr.minimum.is_none()
                    && arg_attr.maximum.is_none()
                    && !arg_attr.maybe_written("minimum")
                    && !arg_attr.maybe_written("maximum")
                {
                    cx.error_at(
                        span,
                        "`clamp` needs a bound to clamp to: give `minimum` and/or `maximum`",
                    );
                }
                let own_doc = docs::join(&docs::lines(&attrs));
                let description = arg_attr
                    .description
                    .as_ref()
                    .map(LitStr::value)
                    .or_else(|| (!own_doc.is_empty()).then_some(own_doc))
                    .or_else(|| doc_arguments.get(&ident.unraw().to_string()).cloned());
                ParamKind::Arg(Box::new(ArgParam {
                    ty: (*typed.ty).clone(),
                    json_name,
                    description,
                    attr: arg_attr,
                }))
            }
            Err(err) => {
                cx.syn_error(err);
                continue;
            }
        };
        params.push(Param { ident, kind });
    }
    if args_marker_seen {
        for param in &params {
            if let ParamKind::Arg(_) = param.kind {
                cx.error_at(
                    param.ident.span(),
                    "with an #[args] parameter, every other parameter must come from the context \
                     (`&T`, `Option<&T>`, `&ToolContext`)",
                );
            }
        }
    }
    params
}

/// `#[arg]` describes a model argument; on an injected or `#[args]` parameter it would be
/// silently meaningless, so it is an error.
fn reject_arg_attr(cx: &Ctxt, attrs: &[Attribute], ident: &Ident) {
    if let Some(attr) = attrs.iter().find(|a| a.path().is_ident(ARG)) {
        cx.error_spanned_by(
            attr,
            format!(
                "#[arg] applies to arguments the model sends; `{ident}` is filled from the \
                 context or is the whole #[args] object"
            ),
        );
    }
}

/// Sorts a parameter type into an injected kind, or `None` for a model argument.
///
/// Every `&T` and `Option<&T>` is injected: whether `T` is the context itself or an extension
/// is decided by type in the expansion, never by the name written here.
fn classify(ty: &Type) -> syn::Result<Option<ParamKind>> {
    match ty {
        Type::Reference(reference) => {
            if reference.mutability.is_some() {
                return Err(syn::Error::new_spanned(
                    ty,
                    "`&mut` parameters are not supported: context values are shared; take `&T`",
                ));
            }
            match &*reference.elem {
                Type::Path(path) if path.path.is_ident("str") => Err(syn::Error::new_spanned(
                    ty,
                    "`&str` cannot come from the model's arguments: take `String`",
                )),
                Type::Slice(_) => Err(syn::Error::new_spanned(
                    ty,
                    "a slice cannot come from the model's arguments: take `Vec<T>`",
                )),
                elem => Ok(Some(ParamKind::Injected(elem.clone()))),
            }
        }
        Type::ImplTrait(_) => Err(syn::Error::new_spanned(
            ty,
            "`impl Trait` parameters are not supported: the argument needs a concrete type",
        )),
        Type::Path(path) => match option_of_reference(&path.path) {
            Some(Type::Reference(reference)) if reference.mutability.is_some() => {
                Err(syn::Error::new_spanned(
                    reference,
                    "`Option<&mut T>` is not supported: take `Option<&T>`",
                ))
            }
            Some(Type::Reference(reference)) => {
                Ok(Some(ParamKind::OptionalInjected((*reference.elem).clone())))
            }
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// `T` when `path` is `Option<T>`.
fn option_of_reference(path: &Path) -> Option<&Type> {
    let last = path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first()? {
            GenericArgument::Type(ty) => Some(ty),
            _ => None,
        },
        _ => None,
    }
}
