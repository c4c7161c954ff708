//! What reaches the model is cleaned: error text is stripped of markup that could be read as a
//! tool call or a new turn and capped, and credentials are redacted from every answer.
//!
//! [`error_text`] follows Hermes 0.19's `_sanitize_tool_error` (role tags, code fences at line
//! edges, CDATA blocks, a 2,000-character cap, the `[TOOL_ERROR]` prefix) and adds what Hermes
//! leaves out: credentials in errors are redacted too.
//!
//! [`redact`] masks credentials in text; `redact_json` does the same to a JSON answer and
//! keeps it valid JSON (see the `json` module).
//!
//! # What is masked
//!
//! Everything Hermes 0.19's `agent/redact.py` masks, and more: over 90 formats in the
//! catalogue (`catalogue.rs`), in four families.
//!
//! - **Vendor tokens**, recognised by their prefix or shape: OpenAI / Anthropic / OpenRouter
//!   `sk-…`, GitHub `ghp_…`/`github_pat_…`, GitLab `glpat-…`, Slack `xoxb-…` and webhook
//!   URLs, AWS `AKIA…`/`ASIA…`, Google `AIza…`, Stripe `sk_live_…`/`whsec_…`, SendGrid
//!   `SG.x.y` (both halves), Telegram and Discord bot tokens, JWTs, Hugging Face, npm, PyPI,
//!   Vault `hvs.…`, age keys and dozens more. They keep Hermes' mask: under 18 characters
//!   `***`, otherwise the first 6 and last 4 characters (`sk-pro...wxyz`), so a reader can tell
//!   which key it was. A token glued to other token characters is not one
//!   (`task-force-alpha-…` is no `sk-` key) unless it is glued to a letter or digit and its body
//!   looks random (`credentialsghp_R8sK…`); any other separator, even none beyond a comma,
//!   separates: `sk-…,sk-…` is two masks.
//! - **Key and value**: `password=…`, `DB_PASS: …`, `"api_key": "…"`, `"SecretAccessKey": …`,
//!   `--token …`, `<password>…</password>`, `AccountKey=…;`, `sig=…&`: when the key names a
//!   secret (the rules are in the `keys` module: `max_tokens`, `token_count`, `nextPageToken`
//!   do not), the whole value becomes `***`, quoted values with their spaces
//!   (`password="correct horse battery staple"`), JSON-escaped quotes too. Keys are found after
//!   any character, non-ASCII letters included (`пароль password=…`, `Ümlaut_password=…`), and
//!   also URL-encoded (`password%3D…`), as YAML block scalars (`password: |` and the lines
//!   below), as any environment name ending in `_KEY`, and as `private_key_id`.
//! - **Headers and URLs**: `Authorization:` of any scheme (the scheme kept), a bare `Bearer …`,
//!   `Cookie:`/`Set-Cookie:` values, URL passwords up to the last `@` before the host
//!   (`https://user:p@ss@host/`, `redis://:pw@host`), a bare token before `@`, a `key=` query
//!   parameter.
//! - **Blocks**: PEM private keys with or without their END line (then up to the end of the
//!   base64 body, a body line followed by text included), password hashes (`$6$…`, `$2b$…`, `$argon2id$…`).
//!
//! # Cost
//!
//! A text with no credential costs one pass of one small Aho-Corasick automaton (the rules'
//! literal markers, folded into about 130 triggers, ASCII case-insensitive) and three `memchr`
//! probes for the formats that have no literal: no pattern runs. Only the rules whose markers
//! occur then run (see `prefilter` and `engine`). The `redact` bench measures it against a JSON
//! parse of the same answer.
//!
//! # False positives, and what is not caught
//!
//! Redaction errs on the side of masking. Known false positives: `key: value` prose where the
//! key is a secret word (`Password: it must be long` masks `it`); an identifier shaped like a
//! key (`sk-` followed by ten token characters); URL query values under secret names
//! (`?token=…`, which Hermes lets through for magic links). Known misses: an unquoted value with
//! spaces keeps all but its first word (`password=correct horse` masks `correct`); a URL password
//! containing an unescaped `/`; secrets with no recognisable shape under a key that names none.

mod catalogue;
mod echo;
mod engine;
mod json;
mod keys;
pub(crate) mod logs;
mod pem;
mod prefilter;
mod probes;
mod yaml;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

pub(crate) use echo::echoed;
pub use json::redact_json;
pub use logs::{RedactingWriter, redact_panic_messages};

/// Longest error message kept, in characters (Hermes: `_TOOL_ERROR_MAX_LEN`).
pub const MAX_ERROR_CHARS: usize = 2000;

/// The prefix that marks an error for the model.
pub const ERROR_PREFIX: &str = "[TOOL_ERROR] ";

fn regex(pattern: &str) -> Regex {
    // The patterns are constants of this module, covered by its tests.
    Regex::new(pattern).unwrap_or_else(|err| panic!("invalid built-in pattern {pattern}: {err}"))
}

static ROLE_TAG: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"(?i)</?(?:tool_call|function_call|result|response|output|input|system|assistant|user)>")
});
static FENCE_OPEN: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?m)^\s*```(?:json|xml|html|markdown)?\s*"));
static FENCE_CLOSE: LazyLock<Regex> = LazyLock::new(|| regex(r"(?m)\s*```\s*$"));
static CDATA: LazyLock<Regex> = LazyLock::new(|| regex(r"(?s)<!\[CDATA\[.*?\]\]>"));

/// Sanitises an error message for the model: strip, cap, redact, prefix.
///
/// (Example: the unit test `error_text_example_holds`.)
pub fn error_text(message: &str) -> String {
    let text = ROLE_TAG.replace_all(message, "");
    let text = FENCE_OPEN.replace_all(&text, "");
    let text = FENCE_CLOSE.replace_all(&text, "");
    let text = CDATA.replace_all(&text, "");
    let text = redact(&text);
    let mut out = String::with_capacity(ERROR_PREFIX.len() + text.len().min(MAX_ERROR_CHARS * 4));
    out.push_str(ERROR_PREFIX);
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        // Over the cap: keep 1,997 characters and an ellipsis, as Hermes does.
        Some(_) => {
            let cut = text
                .char_indices()
                .nth(MAX_ERROR_CHARS - 3)
                .map_or(text.len(), |(i, _)| i);
            out.push_str(&text[..cut]);
            out.push_str("...");
        }
        None => out.push_str(&text),
    }
    out
}

/// Redacts credentials from text: vendor tokens, secret assignments (`password=…`,
/// `"api_key": "…"`), authorization and cookie headers, URL passwords, private keys and the
/// rest of the catalogue described in the [module docs](self). Text without any is returned
/// borrowed, having cost one scan.
///
/// Vendor tokens keep their first 6 and last 4 characters when they are 18 characters or
/// longer; values of secret keys become `***` whole. Masks already there (`***`,
/// `sk-pro...wxyz`, `[REDACTED PRIVATE KEY]`) are left as they are.
///
/// ```
/// use hermes_tools::secrets::redact;
/// assert_eq!(redact("auth: Bearer abcdefghijklmnopqrstuvwxyz"), "auth: Bearer abcdef...wxyz");
/// assert_eq!(redact("login with password=hunter22 failed"), "login with password=*** failed");
/// assert_eq!(
///     redact(r#"{"user": "ann", "password": "correct horse"}"#),
///     r#"{"user": "ann", "password": "***"}"#
/// );
/// // Two keys with one comma between them: both masked.
/// assert_eq!(
///     redact("sk-aaaaaaaaaaaaaaaaaaaaaa,sk-bbbbbbbbbbbbbbbbbbbbbb"),
///     "sk-aaa...aaaa,sk-bbb...bbbb"
/// );
/// assert_eq!(redact("nothing secret"), "nothing secret");
/// ```
pub fn redact(text: &str) -> Cow<'_, str> {
    let candidates = prefilter::candidates(text);
    if candidates.is_empty() {
        return Cow::Borrowed(text);
    }
    engine::redact_with(text, &candidates)
}
