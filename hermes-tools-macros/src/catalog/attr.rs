//! Parsing of `#[resource(...)]` and `#[prompt(...)]`: what was written, with spans.

use proc_macro2::TokenStream;
use syn::{LitStr, Path};

use super::Kind;
use crate::attr::{Key, Keys, parse_keys, value};
use crate::check::{self, Ctxt};

/// The keys of `#[resource(...)]` and `#[prompt(...)]`, as written.
#[derive(Default)]
pub struct CatalogAttr {
    pub uri: Option<LitStr>,
    pub name: Option<LitStr>,
    pub mime_type: Option<LitStr>,
    pub complete: Option<Path>,
    pub krate: Option<Path>,
}

const URI: Key<CatalogAttr> = Key::new("uri", |a, m| value(m, &mut a.uri));
const NAME: Key<CatalogAttr> = Key::new("name", |a, m| {
    value(m, &mut a.name)?;
    a.name
        .as_ref()
        .map_or(Ok(()), |name| check::name_of("name", name))
});
const MIME_TYPE: Key<CatalogAttr> = Key::new("mime_type", |a, m| value(m, &mut a.mime_type));
const COMPLETE: Key<CatalogAttr> = Key::new("complete", |a, m| value(m, &mut a.complete));
const CRATE: Key<CatalogAttr> = Key::new("crate", |a, m| value(m, &mut a.krate));

/// The keys of `#[resource(...)]`.
const RESOURCE_KEYS: Keys<CatalogAttr> = Keys {
    attribute: "#[resource]",
    keys: &[URI, NAME, MIME_TYPE, COMPLETE, CRATE],
};

/// The keys of `#[prompt(...)]`.
const PROMPT_KEYS: Keys<CatalogAttr> = Keys {
    attribute: "#[prompt]",
    keys: &[NAME, COMPLETE, CRATE],
};

impl CatalogAttr {
    /// Parses the attribute's arguments, reporting every bad key to `cx`.
    pub fn parse(cx: &Ctxt, kind: Kind, tokens: TokenStream) -> CatalogAttr {
        let keys = keys(kind);
        let mut attr = CatalogAttr::default();
        parse_keys(cx, tokens, |meta| keys.parse(&mut attr, meta));
        attr
    }
}

/// The keys of `kind`'s attribute.
pub fn keys(kind: Kind) -> &'static Keys<CatalogAttr> {
    match kind {
        Kind::Resource => &RESOURCE_KEYS,
        Kind::Prompt => &PROMPT_KEYS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_and_prompt_keys() {
        crate::attr::tests::check_table(&RESOURCE_KEYS);
        crate::attr::tests::check_table(&PROMPT_KEYS);
    }
}
