//! Doc comments: the tool description, and parameter descriptions from `# Arguments`.

use std::collections::BTreeMap;

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `#[doc]` attributes in `attrs`, one entry per line, leading space removed.
pub fn lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            // `split`, not `lines`: an empty `///` is a paragraph break and must stay a line.
            text.split('\n')
                .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Joins doc lines into one text, trimmed of blank lines at both ends.
///
/// Lines of one paragraph are joined with spaces: rustdoc wraps at 100 columns, the model
/// gains nothing from those breaks, and they cost tokens. Paragraph breaks, list items,
/// headings, tables and code blocks keep their lines.
pub fn join(lines: &[String]) -> String {
    let mut out = String::new();
    let mut in_code = false;
    // A blank line, a heading or a table row ends what came before.
    let mut previous_ends = true;
    for line in lines {
        let trimmed = line.trim();
        let fence = trimmed.starts_with("```");
        let keeps_break = in_code
            || fence
            || trimmed.is_empty()
            || previous_ends
            || line.starts_with("    ")
            || starts_block(trimmed);
        if !out.is_empty() {
            out.push(if keeps_break { '\n' } else { ' ' });
        }
        out.push_str(if in_code { line.as_str() } else { trimmed });
        if fence {
            in_code = !in_code;
        }
        previous_ends = trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('|');
    }
    out.trim().to_owned()
}

/// Whether a line begins a Markdown block that must start on its own line.
fn starts_block(line: &str) -> bool {
    let numbered = line.split_once(". ").is_some_and(|(number, _)| {
        !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
    });
    numbered
        || ["- ", "* ", "+ ", "#", "|", ">"]
            .iter()
            .any(|marker| line.starts_with(marker))
}

/// A function's docs split into the tool description and the `# Arguments` entries.
pub struct FunctionDocs {
    /// The docs without the `# Arguments` section.
    pub description: String,
    /// Parameter name to description, from `` * `name` - text `` items.
    pub arguments: BTreeMap<String, String>,
}

/// Splits `lines` into the description and the `# Arguments` section.
pub fn split_arguments(lines: &[String]) -> FunctionDocs {
    let mut description = Vec::new();
    let mut arguments = BTreeMap::new();
    let mut in_section = false;
    let mut current: Option<String> = None;
    for line in lines {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            let heading = heading.trim_start_matches('#').trim();
            in_section = heading.eq_ignore_ascii_case("arguments")
                || heading.eq_ignore_ascii_case("parameters");
            current = None;
            if in_section {
                continue;
            }
        }
        if !in_section {
            description.push(line.clone());
            continue;
        }
        if let Some((name, text)) = argument_item(trimmed) {
            arguments.insert(name.clone(), text);
            current = Some(name);
        } else if let (Some(name), false) = (&current, trimmed.is_empty()) {
            // A continuation line of the previous item.
            if let Some(text) = arguments.get_mut(name) {
                text.push(' ');
                text.push_str(trimmed);
            }
        }
    }
    FunctionDocs {
        description: join(&description),
        arguments,
    }
}

/// Parses `` * `name` - text `` (also `-` bullets and `:` separators).
fn argument_item(line: &str) -> Option<(String, String)> {
    let rest = line
        .strip_prefix("* ")
        .or_else(|| line.strip_prefix("- "))?;
    let rest = rest.trim_start().strip_prefix('`')?;
    let (name, rest) = rest.split_once('`')?;
    let text = rest.trim_start().trim_start_matches(['-', ':', '—']).trim();
    Some((name.trim().to_owned(), text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn paragraphs_are_reflowed_but_blocks_keep_their_lines() {
        let text = join(&owned(&[
            "Read a file",
            "a page at a time.",
            "",
            "Modes:",
            "- fast",
            "- slow",
            "```",
            "let x = 1;",
            "    indented();",
            "```",
            "1. first",
            "2. second",
        ]));
        assert_eq!(
            text,
            "Read a file a page at a time.\n\nModes:\n- fast\n- slow\n```\nlet x = 1;\n    indented();\n```\n1. first\n2. second"
        );
    }

    #[test]
    fn arguments_section_is_removed_and_parsed() {
        let docs = split_arguments(&owned(&[
            "Read a file.",
            "",
            "# Arguments",
            "* `path` - The file to read,",
            "  relative to the root.",
            "* `limit`: How many lines.",
            "",
            "# Errors",
            "When missing.",
        ]));
        assert_eq!(docs.description, "Read a file.\n\n# Errors\nWhen missing.");
        assert_eq!(
            docs.arguments["path"],
            "The file to read, relative to the root."
        );
        assert_eq!(docs.arguments["limit"], "How many lines.");
    }
}
