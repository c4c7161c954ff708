//! "Did you mean": the known names nearest to one the model got wrong (a tool, a toolset, an
//! argument), used by every error that names alternatives.

/// Longer names are near nothing: no tool, toolset or argument name is this long, and scoring
/// costs the name's length for every candidate (a 2 MB name would hold a worker for minutes).
pub(crate) const MAX_NEAR_CHARS: usize = 128;

/// Up to three names nearest to `name`, best first; none for a name that cannot be a name
/// (longer than [`MAX_NEAR_CHARS`] bytes, or holding a control character).
pub(crate) fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<String> {
    if name.len() > MAX_NEAR_CHARS || name.chars().any(char::is_control) {
        return Vec::new();
    }
    let lowered = name.to_ascii_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .filter_map(|candidate| {
            let other = candidate.to_ascii_lowercase();
            let mut score = strsim::jaro_winkler(&lowered, &other);
            if !lowered.is_empty() && (other.contains(&lowered) || lowered.contains(&other)) {
                score = score.max(0.9);
            }
            (score >= 0.75).then_some((score, candidate))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, n)| n.to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::nearest;

    #[test]
    fn a_plural_finds_its_singular_and_strangers_find_nothing() {
        let names = ["todos", "merge", "read_file"];
        assert_eq!(nearest("todo", names.into_iter()), ["todos"]);
        assert!(nearest("zzzz", names.into_iter()).is_empty());
    }

    #[test]
    fn a_name_that_cannot_be_one_is_near_nothing() {
        let names = ["todos", "read_file"];
        let long = format!("read_file{}", "x".repeat(200));
        assert!(nearest(&long, names.into_iter()).is_empty());
        assert!(nearest("read_file\n", names.into_iter()).is_empty());
        assert_eq!(nearest("read_fil", names.into_iter()), ["read_file"]);
    }
}
