//! Names: what an MCP server's tool is called in the registry, and which names a server may have.
//!
//! A server `time` with a tool `get-current-time` gives the tool `mcp__time__get_current_time`
//! in toolset `mcp-time` (the `mcp__<server>__<tool>` convention of Hermes, Claude Code and
//! Codex, which models are trained on). Every character outside `[A-Za-z0-9_]` becomes `_`.
//! A name longer than the 64 characters providers accept keeps its first 55 characters and
//! gains `_` and 8 hex digits of a hash of the server's and the tool's *original* names, so the
//! shortened name is the same on every run and every machine (std's hasher is seeded per
//! process, hence FNV-1a here), and two long names differing only at the end stay apart.
//!
//! (Example: the unit test `module_example_holds`.)

/// What every MCP tool name starts with.
pub(crate) const TOOL_PREFIX: &str = "mcp__";

/// The longest tool name providers accept.
pub(super) const MAX_TOOL_NAME_LEN: usize = 64;

/// Hex digits of the hash that ends a shortened name.
const HASH_DIGITS: usize = 8;

/// The toolset of server `server`'s tools: `mcp-<server>`.
pub(super) fn toolset_name(server: &str) -> String {
    format!("mcp-{server}")
}

/// `value` with every character outside `[A-Za-z0-9_]` replaced by `_` (one per character,
/// not per byte, so the result is ASCII).
pub(super) fn sanitize_component(value: &str) -> String {
    value
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What the registry names of server `server`'s tools start with: `mcp__<server>__`, sanitised
/// (a name shortened by its hash may have lost part of it).
pub(super) fn tool_prefix(server: &str) -> String {
    format!("{TOOL_PREFIX}{}__", sanitize_component(server))
}

/// The registry name of tool `tool` of server `server`: `mcp__<server>__<tool>`, sanitised,
/// shortened with a stable hash when over [`MAX_TOOL_NAME_LEN`] (see the [module docs](self)).
pub(super) fn tool_name(server: &str, tool: &str) -> String {
    let full = format!(
        "{TOOL_PREFIX}{}__{}",
        sanitize_component(server),
        sanitize_component(tool)
    );
    if full.len() <= MAX_TOOL_NAME_LEN {
        return full;
    }
    let mut hasher = Fnv1a::new();
    hasher.write(server.as_bytes());
    // A separator, so ("ab", "c") and ("a", "bc") hash apart.
    hasher.write(&[0]);
    hasher.write(tool.as_bytes());
    let hash = hasher.finish();
    // Fold the 64 bits so both halves count.
    let folded = (hash ^ (hash >> 32)) as u32;
    let keep = MAX_TOOL_NAME_LEN - HASH_DIGITS - 1;
    // `full` is ASCII (sanitised), so any byte index is a character boundary.
    format!("{}_{folded:0width$x}", &full[..keep], width = HASH_DIGITS)
}

/// Whether `name` can name a server: 1 to 64 characters from `[A-Za-z0-9_-]`.
///
/// The name becomes a toolset (`mcp-<name>`) and an alias that operators type in
/// comma-separated lists (`--disable time,web`), so anything else is refused rather than
/// silently rewritten.
pub(super) fn is_valid_server_name(name: &str) -> bool {
    // The tool-name rule: a server name appears in toolset names, aliases and config keys.
    crate::registry::is_valid_tool_name(name)
}

/// FNV-1a, 64 bits: tiny, fast on short keys, and the same everywhere.
struct Fnv1a(u64);

impl Fnv1a {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Self {
        Self(Self::OFFSET)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        let hash = |bytes: &[u8]| {
            let mut hasher = Fnv1a::new();
            hasher.write(bytes);
            hasher.finish()
        };
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn every_character_outside_the_alphabet_becomes_an_underscore() {
        assert_eq!(sanitize_component("get-sum"), "get_sum");
        assert_eq!(sanitize_component("a.b/c d"), "a_b_c_d");
        // One underscore per character, not per UTF-8 byte.
        assert_eq!(sanitize_component("héllo✓"), "h_llo_");
        assert_eq!(tool_name("my-server", "do.it"), "mcp__my_server__do_it");
    }

    #[test]
    fn names_up_to_64_characters_are_kept_whole() {
        // "mcp__s__" is 8 characters: a 56-character tool name makes exactly 64.
        let tool = "t".repeat(56);
        assert_eq!(tool_name("s", &tool), format!("mcp__s__{tool}"));
        assert_eq!(tool_name("s", &tool).len(), 64);
    }

    #[test]
    fn longer_names_are_shortened_with_a_stable_hash() {
        let tool = "t".repeat(57);
        let name = tool_name("s", &tool);
        assert_eq!(name.len(), 64);
        assert!(name.starts_with(&format!("mcp__s__{}", "t".repeat(47))));
        // Pinned: the hash is part of the name models and configs see, so it must never change.
        assert_eq!(
            name,
            "mcp__s__ttttttttttttttttttttttttttttttttttttttttttttttt_f911f754"
        );
        assert!(crate::registry::is_valid_tool_name(&name));
    }

    #[test]
    fn shortened_names_differ_where_the_originals_differ() {
        let base = "a_very_long_tool_name_that_goes_on_and_on_and_on_and_on";
        let one = tool_name("server", &format!("{base}_one"));
        let two = tool_name("server", &format!("{base}_two"));
        assert_ne!(one, two);
        // Names equal after sanitising but different before hash apart when shortened.
        let dashed = tool_name("server", &format!("{base}-x"));
        let underscored = tool_name("server", &format!("{base}_x"));
        assert_ne!(dashed, underscored);
        // The server/tool boundary is part of the hash.
        let long = "z".repeat(60);
        assert_ne!(
            tool_name("ab", &format!("c{long}")),
            tool_name("abc", &long)
        );
    }

    #[test]
    fn server_names_are_restricted() {
        assert!(is_valid_server_name("time"));
        assert!(is_valid_server_name("my-server_2"));
        assert!(!is_valid_server_name(""));
        assert!(!is_valid_server_name("a,b"));
        assert!(!is_valid_server_name("has space"));
        assert!(!is_valid_server_name(&"x".repeat(65)));
    }

    #[test]
    fn module_example_holds() {
        use crate::mcp::client::naming::{tool_name, toolset_name};

        assert_eq!(
            tool_name("time", "get-current-time"),
            "mcp__time__get_current_time"
        );
        assert_eq!(toolset_name("time"), "mcp-time");
        let long = tool_name("everything", &"x".repeat(80));
        assert_eq!(long.len(), 64);
        assert_eq!(long, tool_name("everything", &"x".repeat(80)));
    }
}
