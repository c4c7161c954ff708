//! The `#[plugin]` attribute: a register function becomes a `PluginDecl` in the `PLUGINS`
//! slice, loaded at run time only when the operator enables the plugin.
//!
//! ```ignore
//! /// Fortunes, and a count of the calls.
//! #[plugin(name = "fortune")]
//! pub fn fortune(ctx: &mut PluginContext<'_>) { ... }
//! // expands to the function, and
//! pub static FORTUNE_PLUGIN: ::hermes_tools::__private::PluginDecl = ...; // in PLUGINS
//! ```

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{ItemFn, LitStr, Path};

use crate::attr::{Key, Keys, parse_keys, value};
use crate::check::{self, Ctxt};
use crate::docs;
use crate::expand::{local_at, provenance, static_ident};

/// The keys of `#[plugin(...)]`, as written.
#[derive(Default)]
struct PluginAttr {
    name: Option<LitStr>,
    krate: Option<Path>,
}

/// The keys of `#[plugin(...)]`.
const PLUGIN_KEYS: Keys<PluginAttr> = Keys {
    attribute: "#[plugin]",
    keys: &[
        Key::new("name", |a, m| {
            value(m, &mut a.name)?;
            a.name
                .as_ref()
                .map_or(Ok(()), |name| check::name_of("plugin name", name))
        }),
        Key::new("crate", |a, m| value(m, &mut a.krate)),
    ],
};

impl PluginAttr {
    /// Parses the arguments, reporting every bad key to `cx`; a name is checked against the
    /// rule.
    fn parse(cx: &Ctxt, tokens: TokenStream) -> PluginAttr {
        let mut attr = PluginAttr::default();
        parse_keys(cx, tokens, |meta| PLUGIN_KEYS.parse(&mut attr, meta));
        attr
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
    let cx = Ctxt::new();
    let attr = PluginAttr::parse(&cx, args);
    let krate = attr
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::hermes_tools));
    match cx.check() {
        Ok(()) => declaration(&krate, &attr, &function),
        Err(err) => fallback(&krate, &function, err),
    }
}

fn declaration(krate: &Path, attr: &PluginAttr, function: &ItemFn) -> TokenStream {
    let private = quote!(#krate::__private);
    let ident = &function.sig.ident;
    let vis = &function.vis;
    let name = match &attr.name {
        Some(name) => quote!(#name),
        // Crate names are identifiers, so they always pass the name rule.
        None => quote!(::core::env!("CARGO_CRATE_NAME")),
    };
    let description = docs::join(&docs::lines(&function.attrs));
    let static_ident = static_ident(ident, "PLUGIN");
    // A typed `let` spanned at the function's name: a wrong signature is one E0308 there.
    let register = local_at("__hermes_register", ident.span());
    let register = quote_spanned! {ident.span()=>
        { let #register: fn(&mut #private::PluginContext<'_>) = #ident; #register }
    };
    let provenance = provenance(&private, ident.span());
    let doc =
        format!("The `#[plugin]` declaration of [`{ident}`], in the linked slice of plugins.");

    quote! {
        #function

        #[doc = #doc]
        #[allow(non_upper_case_globals)]
        #[#private::linkme::distributed_slice(#private::PLUGINS)]
        #[linkme(crate = #private::linkme)]
        #vis static #static_ident: #private::PluginDecl = #private::PluginDecl {
            name: #name,
            description: #description,
            register: #register,
            provenance: #provenance,
        };
    }
}

/// With errors: the errors, the function, and a `FOO_PLUGIN` outside the slice whose register
/// function does nothing, so that code naming `FOO_PLUGIN` gets no second error.
fn fallback(krate: &Path, function: &ItemFn, errors: syn::Error) -> TokenStream {
    let private = quote!(#krate::__private);
    let errors = errors.to_compile_error();
    let ident = &function.sig.ident;
    let vis = &function.vis;
    let static_ident = static_ident(ident, "PLUGIN");
    let provenance = provenance(&private, ident.span());
    quote! {
        #errors
        #function

        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #vis static #static_ident: #private::PluginDecl = #private::PluginDecl {
            name: "",
            description: "",
            register: {
                fn __hermes_no_register(_: &mut #private::PluginContext<'_>) {}
                __hermes_no_register
            },
            provenance: #provenance,
        };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn plugin_keys() {
        crate::attr::tests::check_table(&super::PLUGIN_KEYS);
    }
}
