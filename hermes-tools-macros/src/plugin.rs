//! The `#[plugin]` attribute: a register function becomes a `PluginDecl` in the `PLUGINS`
//! slice, loaded at run time only when the operator enables the plugin.
//!
//! ```ignore
//! /// Fortunes, and a count of the calls.
//! #[plugin(name = "fortune")]
//! pub fn fortune(ctx: &mut PluginContext<'_>) { ... }
//! // expands to the function, and
//! pub static FORTUNE_PLUGIN: ::hermes_tools::plugins::PluginDecl = ...; // in PLUGINS
//! ```

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::{ItemFn, LitStr, Path};

use crate::attr::combine;
use crate::{check, docs};

/// The keys of `#[plugin(...)]`, as written.
#[derive(Default)]
struct PluginAttr {
    name: Option<LitStr>,
    krate: Option<Path>,
}

const PLUGIN_KEYS: &str = "name, crate";

impl PluginAttr {
    /// Parses the arguments, reporting every bad key; a name is checked against the rule.
    fn parse(tokens: TokenStream) -> syn::Result<PluginAttr> {
        let mut attr = PluginAttr::default();
        let mut errors: Option<syn::Error> = None;
        syn::meta::parser(|meta| {
            let once = |taken: bool| {
                if taken {
                    Err(meta.error("this key is given twice"))
                } else {
                    Ok(())
                }
            };
            let result = if meta.path.is_ident("name") {
                once(attr.name.is_some()).and_then(|()| {
                    let name: LitStr = meta.value()?.parse()?;
                    check::name_of("plugin name", &name)?;
                    attr.name = Some(name);
                    Ok(())
                })
            } else if meta.path.is_ident("crate") {
                once(attr.krate.is_some()).and_then(|()| {
                    attr.krate = Some(meta.value()?.parse()?);
                    Ok(())
                })
            } else {
                let path = &meta.path;
                let key = quote!(#path).to_string().replace(' ', "");
                Err(meta.error(format!(
                    "unknown #[plugin] key `{key}`; expected one of: {PLUGIN_KEYS}"
                )))
            };
            if let Err(err) = result {
                combine(&mut errors, err);
                // Skip the rejected value so the next key is still checked.
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                }
            }
            Ok(())
        })
        .parse2(tokens)?;
        errors.map_or(Ok(attr), Err)
    }
}

/// Expands `#[plugin(args)]` on `item`.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let function = match syn::parse2::<ItemFn>(item) {
        Ok(function) => function,
        Err(err) => {
            return syn::Error::new(
                err.span(),
                "#[plugin] goes on a function `fn register(ctx: &mut PluginContext<'_>)`",
            )
            .to_compile_error();
        }
    };
    match PluginAttr::parse(args) {
        Ok(attr) => declaration(&attr, &function),
        Err(err) => {
            let err = err.to_compile_error();
            quote!(#function #err)
        }
    }
}

fn declaration(attr: &PluginAttr, function: &ItemFn) -> TokenStream {
    let krate = attr
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::hermes_tools));
    let private = quote!(#krate::__private);
    let ident = &function.sig.ident;
    let vis = &function.vis;
    let name = match &attr.name {
        Some(name) => quote!(#name),
        // Crate names are identifiers, so they always pass the name rule.
        None => quote!(::core::env!("CARGO_CRATE_NAME")),
    };
    let description = docs::join(&docs::lines(&function.attrs));
    let static_ident = format_ident!(
        "{}_PLUGIN",
        ident.to_string().trim_start_matches("r#").to_uppercase()
    );
    // A typed `let` spanned at the function's name: a wrong signature is one E0308 there.
    let register = quote_spanned! {ident.span()=>
        { let register: fn(&mut #krate::plugins::PluginContext<'_>) = #ident; register }
    };
    let line = quote_spanned!(ident.span()=> ::core::line!());
    let doc =
        format!("The `#[plugin]` declaration of [`{ident}`], in the linked slice of plugins.");

    quote! {
        #function

        #[doc = #doc]
        #[allow(non_upper_case_globals)]
        #[#private::linkme::distributed_slice(#private::PLUGINS)]
        #[linkme(crate = #private::linkme)]
        #vis static #static_ident: #krate::plugins::PluginDecl = #krate::plugins::PluginDecl {
            name: #name,
            description: #description,
            register: #register,
            provenance: #krate::Provenance {
                crate_name: ::std::borrow::Cow::Borrowed(::core::env!("CARGO_CRATE_NAME")),
                module_path: ::std::borrow::Cow::Borrowed(::core::module_path!()),
                file: ::std::borrow::Cow::Borrowed(::core::file!()),
                line: #line,
            },
        };
    }
}
