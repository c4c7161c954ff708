//! Every `#[tool]` key and every `#[arg]` key on one async tool, with injected parameters
//! (`blocking`, for sync tools only, is in `decl_abi.rs`).

use hermes_tools::{tool::SchemaContext, tool::SchemaOverride, ToolContext, tool};

/// A value the agent provides to the tools it runs.
pub struct Workspace {
    /// The workspace root.
    pub root: String,
}

/// A value the agent may provide.
pub struct Budget(pub u32);

/// Whether the tool can run here.
pub fn search_available() -> bool {
    true
}

/// Definition fields replaced at run time.
pub fn search_schema(_: &SchemaContext<'_>) -> SchemaOverride {
    SchemaOverride {
        description: Some("Search the workspace (live index).".into()),
        parameters: None,
    }
}

/// Ignored: `description` below wins over the doc comment.
///
/// # Arguments
/// * `query` - What to look for.
#[tool(
    toolset = "search",
    emoji = "🔎",
    check = search_available,
    name = "workspace-search",
    requires_env = ["HOME", "SEARCH_INDEX"],
    max_result_chars = 20_000,
    dynamic_schema = search_schema,
    overrides,
    parallel,
    crate = ::hermes_tools,
    description = "Search the workspace for text."
)]
pub async fn search(
    #[arg(min_length = 1, max_length = 200, pattern = "^[^\\n]+$")] query: String,
    /// Glob patterns of files to search.
    #[arg(min_items = 1, max_items = 8, default = vec![String::from("**/*")])]
    globs: Vec<String>,
    #[arg(
        minimum = 1,
        maximum = 500,
        clamp,
        default = 50,
        description = "Most matches to return."
    )]
    limit: u32,
    #[arg(rename = "case-sensitive", default = false)] case_sensitive: bool,
    #[arg(default = "src")] r#in: std::path::PathBuf,
    workspace: &Workspace,
    budget: Option<&Budget>,
    ctx: &ToolContext,
) -> Result<Vec<String>, String> {
    let budget = budget.map_or(limit, |b| b.0.min(limit));
    Ok(vec![format!(
        "{query} {globs:?} {budget} {case_sensitive} {} {} {:?}",
        r#in.display(),
        workspace.root,
        ctx.session_id()
    )])
}

fn main() {
    let decl = &SEARCH_TOOL;
    assert_eq!(decl.name, "workspace-search");
    assert_eq!(decl.toolset, "search");
    assert_eq!(decl.emoji, "🔎");
    assert_eq!(decl.description, "Search the workspace for text.");
    assert_eq!(decl.requires_env, ["HOME", "SEARCH_INDEX"]);
    assert_eq!(decl.max_result_chars, Some(20_000));
    assert!(decl.overrides);
    assert!(decl.check.is_some_and(|check| check()));
    assert!(decl.dynamic_schema.is_some());
    assert!(matches!(
        decl.handler,
        hermes_tools::__private::StaticHandler::Async(_)
    ));
    assert_eq!(decl.clamped, ["limit"]);
    assert!(
        !decl.validate,
        "every parameter's type is one serde judges as its schema"
    );
    assert!(!decl.blocking);
    assert_eq!(decl.annotations.parallel, Some(true));

    let schema = (decl.schema)();
    let properties = &schema["properties"];
    assert_eq!(properties["query"]["description"], "What to look for.");
    assert_eq!(properties["query"]["maxLength"], 200);
    assert_eq!(
        properties["globs"]["description"],
        "Glob patterns of files to search."
    );
    assert_eq!(properties["globs"]["maxItems"], 8);
    assert_eq!(
        properties["limit"]["description"],
        "Most matches to return."
    );
    assert_eq!(properties["limit"]["maximum"], 500);
    assert!(properties.get("case-sensitive").is_some());
    assert!(properties.get("in").is_some());
    for injected in ["workspace", "budget", "ctx"] {
        assert!(
            properties.get(injected).is_none(),
            "{injected} is not the model's"
        );
    }

    // The function itself is untouched.
    let workspace = Workspace { root: "/".into() };
    let ctx = ToolContext::new();
    drop(search(
        String::from("x"),
        Vec::new(),
        1,
        false,
        "src".into(),
        &workspace,
        None,
        &ctx,
    ));
}
