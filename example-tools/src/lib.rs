//! Real tools declared with [`hermes_tools`]: the everyday tools of a coding agent,
//! reimplemented from Hermes 0.19 with its output shapes.
//!
//! | tool | toolset | module | what it does |
//! |---|---|---|---|
//! | `clarify` | clarify | [`clarify`](mod@clarify) | asks the user a question through an [`AskUser`] callback |
//! | `todo` | todo | [`todo`](mod@todo) | keeps the session's task list in a [`TodoStore`] |
//! | `read_file` | files | [`files`] | reads numbered lines of a text file |
//! | `write_file` | files | [`files`] | writes a file, creating its directories |
//! | `search_files` | files | [`search`] | searches file contents with a regex, honouring `.gitignore` |
//! | `terminal` | terminal | [`terminal`](mod@terminal) | runs a shell command in the workspace, with a timeout |
//! | `delegate_task` | delegation | [`delegate`] | runs several tool calls at once through the pipeline |
//!
//! Composite toolsets: `coding` includes `files`, `terminal` and `todo`.
//!
//! The file tools and `terminal` take a [`Workspace`] from the call's context: file paths are
//! confined to its root, and commands run in it. A call without one is answered with an error
//! and the tool is not run.
//!
//! # The linking rule
//!
//! Tools are collected at link time, and a binary only links the crates it names. A binary
//! that wants these tools must name the crate once, even if it calls nothing from it:
//!
//! ```
//! use example_tools as _;
//! ```
//!
//! ```
//! use example_tools::Workspace;
//! use hermes_tools::{ToolContext, ToolRegistry};
//!
//! let dir = std::env::temp_dir().join(format!("example-tools-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let ctx = ToolContext::new().with_extension(Workspace::new(&dir));
//! let registry = ToolRegistry::global();
//! registry.call_blocking("write_file", r#"{"path": "hello.txt", "content": "hi\n"}"#, &ctx);
//! let answer = registry.call_blocking("read_file", r#"{"path": "hello.txt"}"#, &ctx);
//! assert_eq!(answer.to_value()["content"], "1|hi");
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

pub mod clarify;
pub mod delegate;
pub mod files;
pub mod fortune;
mod lines;
pub mod search;
pub mod terminal;
pub mod todo;
pub mod workspace;

hermes_tools::toolset! {
    /// What a coding agent works with: files, a shell and a task list.
    pub static CODING = "coding" {
        tools: [],
        includes: ["files", "terminal", "todo"],
    }
}

pub use clarify::AskUser;
pub use todo::TodoStore;
pub use workspace::Workspace;
