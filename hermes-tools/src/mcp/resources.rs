//! Resources: data an MCP client may read by URI, declared on plain functions with
//! [`#[resource]`](macro@crate::resource) and collected at link time into [`RESOURCES`].
//!
//! A resource's URI is fixed (`docs://readme`) or a template of RFC 6570's simplest kind
//! (`notes://{day}/summary`): each `{name}` matches one path segment, which the function
//! receives as its `String` parameter of that name. The function returns text (`String`), a
//! [`ResourceBody`], or a `Result` of either with an error to show the client.
//!
//! ```
//! use hermes_tools::{mcp::resources::ResourceBody, resource};
//!
//! /// The project's one-line summary.
//! #[resource(uri = "project://summary", mime_type = "text/plain")]
//! fn summary() -> String {
//!     "hermes-tools: LLM tools in Rust".to_owned()
//! }
//!
//! /// A note of one day, as JSON.
//! #[resource(uri = "notes://{day}/summary", mime_type = "application/json")]
//! fn note(day: String) -> Result<String, String> {
//!     if day.len() != 10 {
//!         return Err(format!("{day:?} is not a date like 2026-12-01"));
//!     }
//!     Ok(format!(r#"{{"day":"{day}","text":"nothing yet"}}"#))
//! }
//!
//! let summary = hermes_tools::mcp::resources::find("project://summary").unwrap();
//! assert!(!summary.is_template());
//! let (note, vars) = hermes_tools::mcp::resources::matching("notes://2026-12-01/summary").unwrap();
//! assert_eq!(vars, [("day".to_owned(), "2026-12-01".to_owned())]);
//! assert_eq!(note.name, "note");
//! ```
//!
//! Served by `ToolServer`, they answer `resources/list`, `resources/templates/list` and
//! `resources/read` (text masked like any answer), and a client may subscribe to a URI: a call
//! of [`updated`] then sends it `notifications/resources/updated`.

use std::fmt;
use std::sync::{Arc, Weak};

use crate::sync::Mutex;
use linkme::distributed_slice;

use crate::call::combinators::BoxFuture;
use crate::tool::Provenance;

/// What reading a resource gives: its text, or its bytes base64-encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes, base64-encoded (as [`ToolContent`](crate::call::ToolContent) carries images).
    Blob(String),
}

/// What a resource function may return: text, a [`ResourceBody`], or a `Result` of either.
#[diagnostic::on_unimplemented(
    message = "a #[resource] function returns text, a `ResourceBody`, or a `Result` of either, not `{Self}`",
    label = "returns `{Self}`",
    note = "return a `String`, or a `hermes_tools::mcp::resources::ResourceBody::Blob` of base64 for bytes"
)]
pub trait IntoResource {
    /// The body, or what to tell the client instead.
    fn into_resource(self) -> Result<ResourceBody, String>;
}

impl IntoResource for ResourceBody {
    fn into_resource(self) -> Result<ResourceBody, String> {
        Ok(self)
    }
}

impl IntoResource for String {
    fn into_resource(self) -> Result<ResourceBody, String> {
        Ok(ResourceBody::Text(self))
    }
}

impl IntoResource for &'static str {
    fn into_resource(self) -> Result<ResourceBody, String> {
        Ok(ResourceBody::Text(self.to_owned()))
    }
}

impl<T: IntoResource, E: fmt::Display> IntoResource for Result<T, E> {
    fn into_resource(self) -> Result<ResourceBody, String> {
        self.map_err(|err| err.to_string())
            .and_then(IntoResource::into_resource)
    }
}

/// The generated reader of a resource: given the template's values by name, the body.
pub type ReadFn = fn(&[(String, String)]) -> BoxFuture<'static, Result<ResourceBody, String>>;

/// The static declaration `#[resource]` writes into [`RESOURCES`].
#[derive(Debug)]
pub struct ResourceDecl {
    /// The URI, or the URI template (`{name}` parts).
    pub uri: &'static str,
    /// Its name (the function's, unless `name = "..."`).
    pub name: &'static str,
    /// What it holds: the function's doc comment.
    pub description: &'static str,
    /// Its media type.
    pub mime_type: &'static str,
    /// Reads it.
    pub read: ReadFn,
    /// Suggests values for a template's variable: given its name and what is typed so far.
    pub complete: Option<fn(&str, &str) -> Vec<String>>,
    /// Where it was declared.
    pub provenance: Provenance,
}

impl ResourceDecl {
    /// Whether its URI is a template.
    pub fn is_template(&self) -> bool {
        self.uri.contains('{')
    }

    /// The template's values in `uri`, by name, when `uri` is one of its URIs (a fixed URI
    /// matches only itself, with none). A value is part of one path segment (never `/`, `?`
    /// or `#`, never empty, `.` or `..`), as written (percent-encoding is not decoded); when
    /// a literal follows it in the segment, the value runs to that literal's last occurrence
    /// (`{name}.txt` takes `my.notes` from `my.notes.txt`).
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut values = Vec::new();
        let mut rest = uri;
        let mut template = self.uri;
        while let Some(open) = template.find('{') {
            rest = rest.strip_prefix(&template[..open])?;
            let close = open + template[open..].find('}')?;
            let name = &template[open + 1..close];
            template = &template[close + 1..];
            let literal = &template[..template.find('{').unwrap_or(template.len())];
            let segment = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
            let in_segment = &literal[..literal.find(['/', '?', '#']).unwrap_or(literal.len())];
            let end = if in_segment.is_empty() {
                segment.len()
            } else {
                segment.rfind(in_segment)?
            };
            let value = &rest[..end];
            if value.is_empty() || value == "." || value == ".." {
                return None;
            }
            values.push((name.to_owned(), value.to_owned()));
            rest = &rest[end..];
        }
        (rest == template).then_some(values)
    }
}

/// Every resource declared with `#[resource]` in the crates linked into this binary.
#[distributed_slice]
pub static RESOURCES: [ResourceDecl];

/// The linked resource of URI (or URI template) `uri`.
pub fn find(uri: &str) -> Option<&'static ResourceDecl> {
    RESOURCES.iter().find(|resource| resource.uri == uri)
}

/// The linked resource that `uri` names, with the template's values: a fixed URI first,
/// then the first template that matches.
pub fn matching(uri: &str) -> Option<(&'static ResourceDecl, Vec<(String, String)>)> {
    if let Some(fixed) = RESOURCES
        .iter()
        .find(|resource| !resource.is_template() && resource.uri == uri)
    {
        return Some((fixed, Vec::new()));
    }
    RESOURCES
        .iter()
        .filter(|resource| resource.is_template())
        .find_map(|resource| resource.matches(uri).map(|values| (resource, values)))
}

/// Receives the URIs of updated resources (an MCP session with subscriptions).
pub(crate) type UpdateSink = dyn Fn(&str) + Send + Sync;

/// Who is told of updates, for as long as they hold their sink.
static LISTENERS: Mutex<Vec<Weak<UpdateSink>>> = Mutex::new(Vec::new());

/// Tells whoever follows resource `uri` that it changed: every MCP session subscribed to it
/// gets `notifications/resources/updated` and may read it again. Cheap when nobody follows.
pub fn updated(uri: &str) {
    let sinks: Vec<Arc<UpdateSink>> = {
        let mut listeners = LISTENERS.lock();
        listeners.retain(|sink| sink.strong_count() > 0);
        listeners.iter().filter_map(Weak::upgrade).collect()
    };
    for sink in sinks {
        sink(uri);
    }
}

/// Adds `sink` to those [`updated`] tells, until it is dropped.
#[cfg(any(feature = "mcp", test))]
pub(crate) fn listen(sink: &Arc<UpdateSink>) {
    LISTENERS.lock().push(Arc::downgrade(sink));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(uri: &'static str) -> ResourceDecl {
        fn read(_: &[(String, String)]) -> BoxFuture<'static, Result<ResourceBody, String>> {
            Box::pin(async { Ok(ResourceBody::Text(String::new())) })
        }
        ResourceDecl {
            uri,
            name: "t",
            description: "",
            mime_type: "text/plain",
            read,
            complete: None,
            provenance: Provenance::runtime("test", "test"),
        }
    }

    fn pairs(values: &[(&str, &str)]) -> Vec<(String, String)> {
        values
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn templates_match_one_segment_per_variable() {
        let data = decl("test://template/{id}/data");
        assert_eq!(
            data.matches("test://template/123/data"),
            Some(pairs(&[("id", "123")]))
        );
        assert_eq!(data.matches("test://template/1/2/data"), None);
        assert_eq!(data.matches("test://template//data"), None);
        assert_eq!(data.matches("test://template/123/other"), None);
        let two = decl("files://{dir}/{name}.txt");
        assert_eq!(
            two.matches("files://docs/readme.txt"),
            Some(pairs(&[("dir", "docs"), ("name", "readme")]))
        );
        let dotted = decl("files://{name}.txt");
        assert_eq!(
            dotted.matches("files://my.notes.txt"),
            Some(pairs(&[("name", "my.notes")]))
        );
        for refused in [
            "files://...txt",
            "files://a/b.txt",
            "files://a.txt?x=1",
            "files://.txt",
        ] {
            assert_eq!(dotted.matches(refused), None, "{refused}");
        }
        let parent = decl("files://{dir}/index");
        assert_eq!(parent.matches("files://../index"), None);
        assert_eq!(parent.matches("files://docs/index#top"), None);
        let fixed = decl("test://static-text");
        assert_eq!(fixed.matches("test://static-text"), Some(Vec::new()));
        assert_eq!(fixed.matches("test://static-text2"), None);
    }

    #[test]
    fn updates_reach_listeners_while_they_listen() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let sink: Arc<UpdateSink> = Arc::new(move |uri: &str| into.lock().push(uri.to_owned()));
        listen(&sink);
        updated("test://a");
        drop(sink);
        updated("test://b");
        assert_eq!(*seen.lock(), ["test://a"]);
    }
}
