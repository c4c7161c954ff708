//! An over-size answer through the pipeline: head and tail with a marker, the whole answer
//! spilled to a file, and that file read back page by page with the real `read_file` tool.

use example_tools::Workspace;
use hermes_tools::{ToolContext, ToolRegistry, config::Config, tool};
use serde_json::{Value, json};

/// Print four hundred numbered lines, far more than its budget.
#[tool(toolset = "noisy", max_result_chars = 2000)]
fn noisy() -> Value {
    let lines: Vec<String> = (1..=400).map(|n| format!("line {n} é")).collect();
    json!({ "output": lines.join("\n") })
}

#[test]
fn a_spilled_answer_is_paged_back_with_read_file() {
    // A registry of its own, configured with a spill directory.
    let spill = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::linked();
    registry.set_config(Config {
        spill_dir: Some(spill.path().to_owned()),
        ..Config::default()
    });

    let answer = registry.call_blocking("noisy", "{}", &ToolContext::new());
    assert!(
        answer.as_str().chars().count() <= 2000,
        "within the tool's budget"
    );
    let cut = answer.to_value();
    assert_eq!(cut["truncated"], true);
    let file = std::path::PathBuf::from(cut["spill_file"].as_str().unwrap());
    assert!(file.starts_with(spill.path()));

    // The marker says which page holds what was cut.
    let content = cut["content"].as_str().unwrap();
    let marker_at = content.find("\n\n[... ").unwrap();
    let head = &content[..marker_at];
    let marker_end = content.find(" ...]\n\n").unwrap();
    let tail = &content[marker_end + " ...]\n\n".len()..];
    let marker = &content[marker_at..marker_end];
    let (offset, limit): (u64, u64) = {
        let page = marker.split("read_file offset=").nth(1).unwrap();
        let (offset, rest) = page.split_once(" limit=").unwrap();
        (offset.parse().unwrap(), rest.parse().unwrap())
    };

    // Read the whole file back, 50 lines at a time, with read_file.
    let ctx = ToolContext::new().with_extension(Workspace::new(spill.path()));
    let name = file.file_name().unwrap().to_str().unwrap();
    let read = |offset: u64, limit: u64| -> Vec<String> {
        let args = json!({"path": name, "offset": offset, "limit": limit}).to_string();
        let page = registry.call_blocking("read_file", &args, &ctx).to_value();
        page["content"]
            .as_str()
            .unwrap_or_else(|| panic!("{page}"))
            .lines()
            .map(|line| line.split_once('|').unwrap().1.to_owned())
            .collect()
    };
    let mut lines = Vec::new();
    let mut next = 1;
    loop {
        let page = read(next, 50);
        if page.is_empty() {
            break;
        }
        next += page.len() as u64;
        lines.extend(page);
    }
    let mut expected = vec!["== \"output\": string, 400 lines ==".to_owned()];
    expected.extend((1..=400).map(|n| format!("line {n} é")));
    assert_eq!(
        lines, expected,
        "the spill file is the whole answer, line by line"
    );

    // The page the marker names holds everything between head and tail.
    let rendering = format!("{}\n", expected.join("\n"));
    assert!(rendering.starts_with(head) && rendering.ends_with(tail));
    let cut_part = &rendering[head.len()..rendering.len() - tail.len()];
    let page = read(offset, limit).join("\n");
    assert!(
        page.contains(cut_part.trim_matches('\n')),
        "page {offset}+{limit} holds the cut"
    );
}
