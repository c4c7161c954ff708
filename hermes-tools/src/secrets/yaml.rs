//! YAML block scalars under a secret key: where the value of `password: |` ends.
//!
//! The value of a block scalar is on the lines after its indicator, each indented deeper than
//! the line of its key; blank lines may come between them. The first line that is not (a
//! sibling key, the end of the mapping) ends it. Indentation is measured after a tool's line
//! gutter (`read_file`'s `  12|`, `cat -n`, `grep -n`), as `pem` reads one.

use std::ops::Range;

use super::pem::strip_gutter;

/// The value of a block scalar whose key starts at `key_start` and whose lines start at
/// `body_start` (just past the indicator's line break): from its first character to the end of
/// its last non-blank line. `None` when the block is empty.
pub(super) fn block_value(text: &str, key_start: usize, body_start: usize) -> Option<Range<usize>> {
    let line_start = text[..key_start].rfind('\n').map_or(0, |at| at + 1);
    let key_indent = indent(strip_gutter(&text[line_start..key_start]));
    let mut value: Option<Range<usize>> = None;
    let mut at = body_start;
    while at < text.len() {
        let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n);
        let line = text[at..line_end].trim_end_matches('\r');
        let content = strip_gutter(line).trim_start_matches([' ', '\t']);
        if !content.is_empty() {
            if indent(strip_gutter(line)) <= key_indent {
                break;
            }
            let first = at + (line.len() - content.len());
            let end = at + line.len();
            value = Some(value.map_or(first..end, |v| v.start..end));
        }
        at = line_end + 1;
    }
    value
}

/// The width of a line's leading spaces and tabs.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_of<'t>(text: &'t str, key: &str) -> Option<&'t str> {
        let key_start = text.find(key).unwrap();
        let body_start = key_start + text[key_start..].find('\n').unwrap() + 1;
        block_value(text, key_start, body_start).map(|r| &text[r])
    }

    #[test]
    fn a_block_runs_over_its_deeper_lines_and_stops_at_a_sibling() {
        let text = "db:\n  password: |\n    line one\n\n    line two\r\n  host: x\n";
        assert_eq!(value_of(text, "password"), Some("line one\n\n    line two"));
        let text = "- secret: >-\n    folded\nnext: 1";
        assert_eq!(value_of(text, "secret"), Some("folded"));
        assert_eq!(value_of("token: |\nnot: indented\n", "token"), None);
        assert_eq!(value_of("token: |\n   \n", "token"), None);
        let numbered = "3|  password: |\n4|    Bl0ck\n5|  host: x";
        assert_eq!(value_of(numbered, "password"), Some("Bl0ck"));
    }
}
