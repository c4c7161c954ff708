//! Names like a missing file's, as Hermes suggests them.

use std::fs;
use std::path::Path;

use super::{SIMILAR_SCAN, SIMILAR_SHOWN};
use crate::workspace::Workspace;

/// Names in the missing file's directory that look like it, best first, as Hermes scores them.
pub(super) fn similar_files(workspace: &Workspace, missing: &Path) -> Vec<String> {
    let (Some(dir), Some(wanted)) = (missing.parent(), missing.file_name()) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let wanted = wanted.to_string_lossy().to_lowercase();
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    names.truncate(SIMILAR_SCAN);
    let mut scored: Vec<(u8, String)> = names
        .into_iter()
        .filter_map(|name| Some((similarity(&wanted, &name.to_lowercase())?, name)))
        .collect();
    // Stable: equal scores keep name order, as Hermes' sort does.
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored
        .into_iter()
        .take(SIMILAR_SHOWN)
        .map(|(_, name)| workspace.display_path(&dir.join(name)))
        .collect()
}

/// Hermes' `_suggest_similar_files` score of a candidate name (both lowercase).
pub(super) fn similarity(wanted: &str, candidate: &str) -> Option<u8> {
    let (wanted_stem, wanted_ext) = split_extension(wanted);
    let (candidate_stem, candidate_ext) = split_extension(candidate);
    let score = if candidate == wanted {
        100
    } else if candidate_stem == wanted_stem {
        90
    } else if candidate.starts_with(wanted) || wanted.starts_with(candidate) {
        70
    } else if candidate.contains(wanted) {
        60
    } else if wanted.contains(candidate) && candidate.chars().count() > 2 {
        40
    } else if !wanted_ext.is_empty()
        && candidate_ext == wanted_ext
        && share_letters(wanted, candidate)
    {
        30
    } else {
        0
    };
    (score > 0).then_some(score)
}

/// Whether the two names share at least 40% of the longer one's length in distinct characters.
pub(super) fn share_letters(a: &str, b: &str) -> bool {
    let set_a: std::collections::HashSet<char> = a.chars().collect();
    let common = b
        .chars()
        .collect::<std::collections::HashSet<char>>()
        .intersection(&set_a)
        .count();
    let longest = a.chars().count().max(b.chars().count());
    common as f64 >= longest as f64 * 0.4
}

/// Python's `os.path.splitext` for a file name: leading dots never start an extension.
pub(super) fn split_extension(name: &str) -> (&str, &str) {
    let first_non_dot = name.len() - name.trim_start_matches('.').len();
    match name.rfind('.') {
        Some(dot) if dot > first_non_dot => name.split_at(dot),
        _ => (name, ""),
    }
}
