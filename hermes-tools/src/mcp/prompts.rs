//! Prompts: message templates an MCP client may fetch by name, declared on plain functions with
//! [`#[prompt]`](macro@crate::prompt) and collected at link time into [`PROMPTS`].
//!
//! A prompt's arguments are the function's parameters: `String` (required) or
//! `Option<String>`, described in the doc comment's `# Arguments` section like a tool's. It
//! returns text (one user message), a [`Prompt`] of several messages (text, images, embedded
//! resources), or a `Result` of either with an error to show the client.
//!
//! ```
//! use hermes_tools::{mcp::prompts::Prompt, prompt};
//!
//! /// Review a change for bugs.
//! ///
//! /// # Arguments
//! /// * `diff` - The change, as a unified diff.
//! /// * `focus` - What to look at most (optional).
//! #[prompt]
//! fn review(diff: String, focus: Option<String>) -> Prompt {
//!     let focus = focus.unwrap_or_else(|| "correctness".to_owned());
//!     Prompt::new()
//!         .user_resource_text("diff://change", "text/x-diff", diff)
//!         .user(format!("Review the change above, for {focus}."))
//! }
//!
//! let declared = hermes_tools::mcp::prompts::find("review").unwrap();
//! assert_eq!(declared.description, "Review a change for bugs.");
//! assert_eq!(declared.arguments[0].name, "diff");
//! assert!(declared.arguments[0].required && !declared.arguments[1].required);
//! ```
//!
//! Served by `ToolServer`, they answer `prompts/list` and `prompts/get` (a missing required
//! argument is refused, naming it; text masked like any answer), and `completion/complete` for
//! their arguments when the declaration names a completer (`#[prompt(complete = f)]`).

use linkme::distributed_slice;

use crate::call::answer::ContentPart;
use crate::call::combinators::BoxFuture;
use crate::tool::Provenance;

/// Who says a message of a [`Prompt`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptRole {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// The messages a prompt gives, each one part: text, an image, or an embedded resource.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prompt {
    messages: Vec<(PromptRole, ContentPart)>,
}

impl Prompt {
    /// No messages yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a user message of `text`.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.part(PromptRole::User, ContentPart::Text { text: text.into() })
    }

    /// Adds an assistant message of `text`.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.part(
            PromptRole::Assistant,
            ContentPart::Text { text: text.into() },
        )
    }

    /// Adds a user message of an image, `data` base64-encoded.
    pub fn user_image(self, data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        let image = ContentPart::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        };
        self.part(PromptRole::User, image)
    }

    /// Adds a user message embedding the text resource `uri`.
    pub fn user_resource_text(
        self,
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let resource = ContentPart::Resource {
            uri: uri.into(),
            mime_type: mime_type.into(),
            text: Some(text.into()),
            blob: None,
        };
        self.part(PromptRole::User, resource)
    }

    /// Adds a message of `role` with `part`.
    pub fn part(mut self, role: PromptRole, part: ContentPart) -> Self {
        self.messages.push((role, part));
        self
    }

    /// The messages, in order.
    pub fn messages(&self) -> &[(PromptRole, ContentPart)] {
        &self.messages
    }
}

/// What a prompt function may return: text, a [`Prompt`], or a `Result` of either.
#[diagnostic::on_unimplemented(
    message = "a #[prompt] function returns text, a `Prompt`, or a `Result` of either, not `{Self}`",
    label = "returns `{Self}`",
    note = "return a `String` (one user message) or a `hermes_tools::mcp::prompts::Prompt` of several"
)]
pub trait IntoPrompt {
    /// The messages, or what to tell the client instead.
    fn into_prompt(self) -> Result<Prompt, String>;
}

impl IntoPrompt for Prompt {
    fn into_prompt(self) -> Result<Prompt, String> {
        Ok(self)
    }
}

impl IntoPrompt for String {
    fn into_prompt(self) -> Result<Prompt, String> {
        Ok(Prompt::new().user(self))
    }
}

impl IntoPrompt for &'static str {
    fn into_prompt(self) -> Result<Prompt, String> {
        Ok(Prompt::new().user(self))
    }
}

impl<T: IntoPrompt, E: std::fmt::Display> IntoPrompt for Result<T, E> {
    fn into_prompt(self) -> Result<Prompt, String> {
        self.map_err(|err| err.to_string())
            .and_then(IntoPrompt::into_prompt)
    }
}

/// One argument of a [`PromptDecl`].
#[derive(Debug)]
pub struct PromptArgumentDecl {
    /// Its name.
    pub name: &'static str,
    /// What it is: its `# Arguments` entry.
    pub description: &'static str,
    /// Whether it must be given (a `String` parameter, not an `Option<String>`).
    pub required: bool,
}

/// The generated getter of a prompt: given the arguments by name (required ones checked).
pub type GetFn = fn(&[(String, String)]) -> BoxFuture<'static, Result<Prompt, String>>;

/// The static declaration `#[prompt]` writes into [`PROMPTS`].
#[derive(Debug)]
pub struct PromptDecl {
    /// Its name (the function's, unless `name = "..."`).
    pub name: &'static str,
    /// What it is for: the function's doc comment, without `# Arguments`.
    pub description: &'static str,
    /// Its arguments, in the function's order.
    pub arguments: &'static [PromptArgumentDecl],
    /// Builds its messages.
    pub get: GetFn,
    /// Suggests values for an argument: given its name and what is typed so far.
    pub complete: Option<fn(&str, &str) -> Vec<String>>,
    /// Where it was declared.
    pub provenance: Provenance,
}

impl PromptDecl {
    /// The required arguments `given` lacks, by name.
    pub fn missing<'a>(&'a self, given: &[(String, String)]) -> Vec<&'a str> {
        self.arguments
            .iter()
            .filter(|argument| argument.required)
            .filter(|argument| !given.iter().any(|(name, _)| name == argument.name))
            .map(|argument| argument.name)
            .collect()
    }
}

/// Every prompt declared with `#[prompt]` in the crates linked into this binary.
#[distributed_slice]
pub static PROMPTS: [PromptDecl];

/// The linked prompt named `name`.
pub fn find(name: &str) -> Option<&'static PromptDecl> {
    PROMPTS.iter().find(|prompt| prompt.name == name)
}

/// The value of argument `name` in `given` (what the generated getter reads).
#[doc(hidden)]
pub fn argument(given: &[(String, String)], name: &str) -> Option<String> {
    given
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.clone())
}
