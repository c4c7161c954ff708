//! The fields `#[tool]` writes beyond the keys: `blocking`, `task`, `parallel = false` (kept apart
//! from "not written"), `clamped` (model names, after `rename`), `validate` (set by a type the
//! macro cannot vouch for), and `parse`, the one deserialization of the arguments, which
//! refuses unknown keys.

// `StaticHandler` is the ABI the macro writes, not a public API.
use hermes_tools::__private::StaticHandler;
use hermes_tools::{ToolContext, tool};
use serde::Deserialize;

/// Count lines.
#[tool(toolset = "demo", blocking, read_only, parallel = false)]
fn count_lines(
    path: std::path::PathBuf,
    #[arg(minimum = 1, maximum = 100, clamp, rename = "max-lines")] max_lines: Option<u32>,
    #[arg(minimum = 0, clamp)] skip: u64,
    tags: Option<Vec<String>>,
) -> usize {
    let _ = (path, tags);
    max_lines.unwrap_or(100) as usize - skip as usize
}

/// A type the macro does not know.
#[derive(Deserialize, schemars::JsonSchema)]
pub enum Mode {
    /// Quickly.
    Fast,
    /// Carefully.
    Slow,
}

/// Set the mode.
#[tool(toolset = "demo", task)]
async fn set_mode(mode: Mode) -> String {
    match mode {
        Mode::Fast => "fast".into(),
        Mode::Slow => "slow".into(),
    }
}

fn main() {
    let decl = &COUNT_LINES_TOOL;
    assert!(decl.blocking);
    assert!(!decl.task, "not written: not a task at once");
    assert!(decl.annotations.read_only);
    assert_eq!(
        decl.annotations.parallel,
        Some(false),
        "`parallel = false` is written down"
    );
    assert_eq!(
        SET_MODE_TOOL.annotations.parallel, None,
        "not written: `read_only` decides"
    );
    assert_eq!(decl.clamped, ["max-lines", "skip"]);
    assert!(
        !decl.validate,
        "every parameter's type is one serde judges as its schema"
    );
    assert!((decl.parse)(r#"{"path": "a", "skip": 1}"#).is_ok());
    assert!((decl.parse)(r#"{"path": "a", "skip": 1, "nope": 2}"#).is_err());
    assert!((decl.parse)(r#"["a", 1]"#).is_err());
    let StaticHandler::Sync(call) = decl.handler else {
        panic!("a sync tool has a sync handler");
    };
    let answer = call(
        r#"{"path": "a", "max-lines": 10, "skip": 3}"#,
        &ToolContext::new(),
    );
    assert_eq!(answer.expect("valid arguments").as_str(), "7");
    assert!(
        call(
            r#"{"path": "a", "skip": 3, "max_lines": 10}"#,
            &ToolContext::new()
        )
        .is_err()
    );

    let decl = &SET_MODE_TOOL;
    assert!(!decl.blocking);
    assert!(decl.task, "`task` is written down");
    assert!(hermes_tools::tool::Tool::from_decl(decl).runs_as_task());
    assert!(decl.clamped.is_empty());
    assert!(decl.validate, "`Mode` may accept what its schema refuses");
    assert!((decl.parse)(r#"{"mode": "Fast"}"#).is_ok());
    assert!(matches!(decl.handler, StaticHandler::Async(_)));
}
