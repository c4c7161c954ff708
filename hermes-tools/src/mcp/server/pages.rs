//! `tools/list` in pages: the listing rendered once into MCP tools and shared, and the cursors
//! that walk it.
//!
//! A listing is rendered into `rmcp` tools once per change of what is listed (the registry's
//! cached [`Definitions`] are the key: a new generation, config or availability makes a new
//! list), and every session of the server shares that rendering: a `tools/list` then copies
//! its page's entries (a reference count for each schema) instead of converting every
//! definition again.
//!
//! A page holds at most [`ToolServer::page_size`](super::ToolServer::page_size) tools
//! ([`DEFAULT_PAGE_SIZE`]); a longer list ends its page with `nextCursor`, as the MCP
//! specification's pagination (2025-11-25 and 2026-07-28 alike) describes: an opaque string,
//! the page size the server's choice. A cursor names the position of the next page and a
//! fingerprint of the whole list (a digest of every listed tool's MCP form), so:
//!
//! - pages are stable while the list does not change, whichever session or replica serves the
//!   next page (a replica given the same tools computes the same fingerprint);
//! - a cursor given before the list changed is refused (-32602, saying to list again from the
//!   start), rather than mixing two lists into one that never existed;
//! - a cursor this server never gave is refused (-32602) the same way.

use std::sync::Arc;

use crate::sync::Mutex;
use rmcp::ErrorData;
use rmcp::model::Tool as McpTool;
use sha2::{Digest, Sha256};

use super::{Listing, convert};
use crate::definitions::Definitions;
use crate::secrets::echoed;

/// How many tools a `tools/list` answer holds at most, unless set with
/// [`ToolServer::page_size`](super::ToolServer::page_size).
///
/// A thousand: no server of a realistic size is paginated (a provider takes at most 128 tools
/// in one request, so a host offers a model far fewer), which spares the clients that read only
/// the first page; while a page of 10,000 tools' list stays well under a megabyte of JSON for
/// tools of a few parameters, far below the 16 MiB a message may take.
pub const DEFAULT_PAGE_SIZE: usize = 1000;

/// How many hexadecimal digits of a cursor are the list's fingerprint.
const FINGERPRINT_DIGITS: usize = 16;

/// A listing rendered as `rmcp` tools, with the fingerprint its cursors carry.
pub(super) struct Rendered {
    tools: Box<[McpTool]>,
    fingerprint: u64,
}

/// One `tools/list` answer's tools and the cursor of the page after them, if any.
pub(super) type Page = (Vec<McpTool>, Option<String>);

impl Rendered {
    /// Renders `listing`, and digests it for its cursors.
    fn of(listing: &Listing) -> Self {
        let tools: Box<[McpTool]> = listing
            .iter()
            .map(|(_, definition)| convert::tool(definition))
            .collect();
        let mut digest = DigestWriter(Sha256::new());
        for tool in &tools {
            // Writing to a digest cannot fail, and an rmcp tool always serializes.
            let _ = serde_json::to_writer(&mut digest, tool);
            digest.0.update(b"\n");
        }
        let hash = digest.0.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&hash[..8]);
        Self {
            tools,
            fingerprint: u64::from_be_bytes(first),
        }
    }

    /// The page `cursor` names (the first without one), of at most `page_size` tools (0: every
    /// tool from there on).
    ///
    /// # Errors
    ///
    /// -32602 (invalid params) for a cursor this list did not give: one of a list since
    /// changed, or one never given.
    pub(super) fn page(&self, cursor: Option<&str>, page_size: usize) -> Result<Page, ErrorData> {
        let start = match cursor {
            None => 0,
            Some(cursor) => self.position(cursor)?,
        };
        let end = match page_size {
            0 => self.tools.len(),
            size => start.saturating_add(size).min(self.tools.len()),
        };
        let next = (end < self.tools.len()).then(|| self.cursor(end));
        Ok((self.tools[start..end].to_vec(), next))
    }

    /// The cursor of the page that starts at `position`.
    fn cursor(&self, position: usize) -> String {
        format!("{:016x}{position:x}", self.fingerprint)
    }

    /// Where the page `cursor` names starts.
    fn position(&self, cursor: &str) -> Result<usize, ErrorData> {
        let parsed = cursor
            .is_ascii()
            .then(|| cursor.split_at_checked(FINGERPRINT_DIGITS))
            .flatten()
            .filter(|(_, position)| !position.is_empty())
            .and_then(|(fingerprint, position)| {
                let fingerprint = u64::from_str_radix(fingerprint, 16).ok()?;
                let position = usize::from_str_radix(position, 16).ok()?;
                Some((fingerprint, position))
            });
        match parsed {
            Some((fingerprint, position)) if fingerprint == self.fingerprint => {
                if position > 0 && position < self.tools.len() {
                    Ok(position)
                } else {
                    Err(invalid_cursor(cursor))
                }
            }
            Some(_) => Err(ErrorData::invalid_params(
                "Stale cursor: the tool list changed since this cursor was given (the server \
                 announces it with notifications/tools/list_changed). List the tools again \
                 from the start, without a cursor.",
                Some(serde_json::json!({"cursor": echoed(cursor), "reason": "stale"})),
            )),
            None => Err(invalid_cursor(cursor)),
        }
    }
}

/// The error for a cursor this server never gave.
fn invalid_cursor(cursor: &str) -> ErrorData {
    let shown = echoed(cursor);
    ErrorData::invalid_params(
        format!(
            "Invalid cursor {shown:?}: it is not one this server gave. List the tools from the \
             start, without a cursor, and pass each nextCursor back as it was given."
        ),
        Some(serde_json::json!({"cursor": shown, "reason": "invalid"})),
    )
}

/// Feeds what `serde_json` writes to a digest, without an intermediate buffer.
struct DigestWriter(Sha256);

impl std::io::Write for DigestWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The last listing rendered, shared by every session of a server (see the module docs).
#[derive(Default)]
pub(super) struct RenderedCache(Mutex<Option<Cached>>);

/// A rendering and what it was rendered from.
struct Cached {
    definitions: Definitions,
    hidden: Vec<String>,
    rendered: Arc<Rendered>,
}

impl RenderedCache {
    /// `listing` rendered: the shared rendering when the same definitions (the same shared
    /// list, with the same tools hidden) were rendered last, else a new one, kept for the
    /// next request.
    pub(super) fn get(&self, listing: &Listing) -> Arc<Rendered> {
        if let Some(cached) = &*self.0.lock()
            && cached.definitions.ptr_eq(&listing.definitions)
            && cached.hidden == listing.hidden()
        {
            return Arc::clone(&cached.rendered);
        }
        // Rendered outside the lock: another session's hit need not wait for it.
        let rendered = Arc::new(Rendered::of(listing));
        *self.0.lock() = Some(Cached {
            definitions: listing.definitions.clone(),
            hidden: listing.hidden().to_vec(),
            rendered: Arc::clone(&rendered),
        });
        rendered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolRegistry;
    use crate::definitions::formats::Format;
    use crate::tool::Tool;
    use crate::{DefinitionsRequest, ToolContext};

    fn listing(registry: &ToolRegistry) -> Listing {
        let request = DefinitionsRequest::all().format(Format::Mcp);
        Listing {
            definitions: registry.definitions(&request).expect("every toolset"),
            hiding: None,
        }
    }

    fn registry(names: &[&str]) -> ToolRegistry {
        let registry = ToolRegistry::new();
        for name in names {
            let tool = Tool::builder(*name, "demo")
                .description("A tool.")
                .handler(|_: serde_json::Value, _: &ToolContext| "ok");
            registry.register(tool.build()).expect("registers");
        }
        registry
    }

    fn names(page: &Page) -> Vec<&str> {
        page.0.iter().map(|tool| &*tool.name).collect()
    }

    #[test]
    fn pages_walk_the_list_in_order_and_the_last_has_no_cursor() {
        let rendered = Rendered::of(&listing(&registry(&["a", "b", "c", "d", "e"])));
        let first = rendered.page(None, 2).expect("first page");
        assert_eq!(names(&first), ["a", "b"]);
        let second = rendered.page(first.1.as_deref(), 2).expect("second page");
        assert_eq!(names(&second), ["c", "d"]);
        let last = rendered.page(second.1.as_deref(), 2).expect("last page");
        assert_eq!(names(&last), ["e"]);
        assert_eq!(last.1, None);
        // Unpaginated, and a page as long as the list: one page, no cursor.
        assert_eq!(rendered.page(None, 0).expect("all").0.len(), 5);
        assert_eq!(rendered.page(None, 5).expect("all").1, None);
    }

    #[test]
    fn the_same_tools_give_the_same_cursors_and_a_change_makes_them_stale() {
        let names_before = ["a", "b", "c"];
        let one = Rendered::of(&listing(&registry(&names_before)));
        // Another registry (another replica) with the same tools: its cursors are the same.
        let replica = Rendered::of(&listing(&registry(&names_before)));
        let cursor = one.page(None, 1).expect("first").1.expect("a cursor");
        assert_eq!(
            replica.page(None, 1).expect("first").1,
            Some(cursor.clone())
        );
        assert_eq!(names(&replica.page(Some(&cursor), 1).expect("next")), ["b"]);

        let changed = Rendered::of(&listing(&registry(&["a", "b", "c", "d"])));
        let stale = changed.page(Some(&cursor), 1).expect_err("stale");
        assert_eq!(stale.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(stale.message.contains("changed"), "{}", stale.message);
        assert!(
            stale.message.contains("without a cursor"),
            "{}",
            stale.message
        );
    }

    #[test]
    fn cursors_never_given_are_invalid_params_saying_what_to_do() {
        let rendered = Rendered::of(&listing(&registry(&["a", "b", "c"])));
        let cursor = rendered.page(None, 1).expect("first").1.expect("a cursor");
        let fingerprint = &cursor[..FINGERPRINT_DIGITS];
        for forged in [
            String::new(),
            "5".to_owned(),
            "not a cursor at all".to_owned(),
            fingerprint.to_owned(),
            format!("{fingerprint}0"),
            format!("{fingerprint}3"),
            format!("{fingerprint}ffffffffffffffffffff"),
            format!("{fingerprint}zz"),
            "é".repeat(20),
        ] {
            let refused = rendered.page(Some(&forged), 1).expect_err(&forged);
            assert_eq!(
                refused.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{forged}"
            );
            assert!(
                refused.message.contains("not one this server gave"),
                "{forged}: {}",
                refused.message
            );
        }
    }

    #[test]
    fn a_listing_is_rendered_once_until_it_changes() {
        let registry = registry(&["a", "b"]);
        let cache = RenderedCache::default();
        let first = cache.get(&listing(&registry));
        assert!(Arc::ptr_eq(&first, &cache.get(&listing(&registry))));
        let more = Tool::builder("c", "demo").handler(|_: serde_json::Value, _: &ToolContext| "ok");
        registry.register(more.build()).expect("registers");
        let after = cache.get(&listing(&registry));
        assert!(!Arc::ptr_eq(&first, &after));
        assert_eq!(after.tools.len(), 3);
    }
}
