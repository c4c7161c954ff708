//! Bearer tokens for the Streamable HTTP endpoint: what lets `serve --http` listen beyond
//! loopback.
//!
//! The operator gives the accepted tokens (a file, one per line, or an environment variable);
//! every request must carry one as `Authorization: Bearer <token>`, or it is answered 401 with
//! a `WWW-Authenticate: Bearer` challenge before anything else reads it. Tokens are compared in
//! constant time (`subtle`), against every accepted token, so that neither the answer's timing
//! nor which token matched tells a client how close its guess was. Several tokens let one be
//! rotated out while clients move to the next. TLS is a reverse proxy's job (see the [`mcp`](crate::mcp) module docs).

use std::fmt;
use std::path::Path;

use subtle::{ConditionallySelectable, ConstantTimeEq};

/// The fewest characters a token may have: shorter ones can be guessed.
pub const MIN_TOKEN_CHARS: usize = 32;

/// The tokens a Streamable HTTP endpoint accepts
/// ([`ToolServer::require_bearer`](super::ToolServer::require_bearer)).
///
/// ```
/// use hermes_tools::mcp::server::BearerTokens;
///
/// let tokens = BearerTokens::new(["4c1f0d2e9b7a8c6f5e3d1b0a9f8e7d6c"]).unwrap();
/// assert_eq!(tokens.len(), 1);
/// let short = BearerTokens::new(["secret"]).unwrap_err();
/// assert!(short.to_string().contains("at least 32 characters"), "{short}");
/// ```
#[derive(Clone)]
pub struct BearerTokens {
    tokens: Vec<Box<[u8]>>,
}

/// Why tokens were refused: what to fix, never the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BearerError(String);

impl BearerTokens {
    /// These tokens, each of at least [`MIN_TOKEN_CHARS`] visible ASCII characters.
    ///
    /// # Errors
    ///
    /// No token, or one too short or holding a character an HTTP header cannot carry as is.
    pub fn new<I, S>(tokens: I) -> Result<Self, BearerError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut accepted = Vec::new();
        for (i, token) in tokens.into_iter().enumerate() {
            let token = token.as_ref();
            let which = i + 1;
            if token.chars().count() < MIN_TOKEN_CHARS {
                return Err(BearerError(format!(
                    "token {which} has {} characters; a bearer token needs at least \
                     {MIN_TOKEN_CHARS} characters (`openssl rand -hex 32` makes one)",
                    token.chars().count()
                )));
            }
            if !token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(BearerError(format!(
                    "token {which} holds a space, a control or a non-ASCII character; use \
                     visible ASCII only"
                )));
            }
            accepted.push(Box::from(token.as_bytes()));
        }
        if accepted.is_empty() {
            return Err(BearerError("no token given: give at least one".to_owned()));
        }
        Ok(Self { tokens: accepted })
    }

    /// The tokens of a file, one per line; blank lines and lines starting with `#` are
    /// skipped.
    ///
    /// # Errors
    ///
    /// The file cannot be read, or its tokens are refused as by [`BearerTokens::new`].
    pub fn from_file(path: &Path) -> Result<Self, BearerError> {
        let text = std::fs::read_to_string(path).map_err(|err| {
            BearerError(format!(
                "cannot read the token file {}: {err}",
                path.display()
            ))
        })?;
        let lines = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'));
        Self::new(lines)
            .map_err(|BearerError(why)| BearerError(format!("{}: {why}", path.display())))
    }

    /// The tokens of environment variable `name`, separated by whitespace or commas.
    ///
    /// # Errors
    ///
    /// The variable is not set (or not UTF-8), or its tokens are refused as by
    /// [`BearerTokens::new`].
    pub fn from_env(name: &str) -> Result<Self, BearerError> {
        let value = std::env::var(name).map_err(|_| {
            BearerError(format!(
                "the environment variable {name} is not set (or not UTF-8)"
            ))
        })?;
        let tokens = value
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|token| !token.is_empty());
        Self::new(tokens).map_err(|BearerError(why)| BearerError(format!("{name}: {why}")))
    }

    /// How many tokens are accepted.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether no token is accepted (never, for tokens made by the constructors).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Which accepted token an `Authorization` header value carries (its place among them),
    /// if any.
    pub(crate) fn admitted(&self, authorization: Option<&[u8]>) -> Option<usize> {
        let token = authorization.and_then(bearer_token)?;
        // Every token is compared, whichever matches, and the match is picked without a branch.
        let (found, index) = self.tokens.iter().enumerate().fold(
            (subtle::Choice::from(0), 0u64),
            |(found, index), (place, accepted)| {
                let same = accepted.as_ref().ct_eq(token);
                let place = u64::try_from(place).unwrap_or(u64::MAX);
                (found | same, u64::conditional_select(&index, &place, same))
            },
        );
        bool::from(found).then(|| usize::try_from(index).unwrap_or(usize::MAX))
    }
}

/// The token of a `Bearer` credential (the scheme's case does not matter, RFC 7235).
fn bearer_token(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(7)?;
    scheme
        .eq_ignore_ascii_case(b"bearer ")
        .then(|| rest.trim_ascii())
}

// By hand: the tokens are never shown.
impl fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BearerTokens({} tokens)", self.tokens.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    #[test]
    fn only_an_accepted_token_in_a_bearer_credential_is_admitted() {
        let tokens = BearerTokens::new([A, B]).unwrap();
        assert_eq!(
            tokens.admitted(Some(format!("Bearer {A}").as_bytes())),
            Some(0)
        );
        assert_eq!(
            tokens.admitted(Some(format!("bearer {B}").as_bytes())),
            Some(1)
        );
        assert_eq!(
            tokens.admitted(Some(format!("BEARER  {B} ").as_bytes())),
            Some(1)
        );
        let refused = [
            (None, "nothing"),
            (Some(A.to_owned()), "no scheme"),
            (Some(format!("Basic {A}")), "another scheme"),
            (Some(format!("Bearer {}", &A[1..])), "a prefix"),
            (Some(format!("Bearer {A}x")), "longer"),
            (Some("Bearer ".to_owned()), "empty"),
        ];
        for (sent, what) in refused {
            assert_eq!(
                tokens.admitted(sent.as_deref().map(str::as_bytes)),
                None,
                "{what}"
            );
        }
    }

    #[test]
    fn weak_or_missing_tokens_are_refused_saying_what_to_fix() {
        assert!(
            BearerTokens::new(["short"])
                .unwrap_err()
                .0
                .contains("at least 32")
        );
        let spaced = format!("{A} x");
        assert!(
            BearerTokens::new([spaced])
                .unwrap_err()
                .0
                .contains("visible ASCII")
        );
        assert!(
            BearerTokens::new(Vec::<String>::new())
                .unwrap_err()
                .0
                .contains("no token")
        );
    }

    #[test]
    fn a_token_file_takes_one_per_line_and_skips_comments() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        std::fs::write(&path, format!("# rotated 2026-12\n{A}\n\n  {B}  \n")).unwrap();
        let tokens = BearerTokens::from_file(&path).unwrap();
        assert_eq!(tokens.len(), 2);
        assert_eq!(
            tokens.admitted(Some(format!("Bearer {B}").as_bytes())),
            Some(1)
        );
        assert_eq!(format!("{tokens:?}"), "BearerTokens(2 tokens)");
        std::fs::write(&path, "tooshort\n").unwrap();
        let err = BearerTokens::from_file(&path).unwrap_err().0;
        assert!(err.contains("tokens: token 1 has 8 characters"), "{err}");
        assert!(!err.contains("tooshort"), "the token is never shown: {err}");
        let missing = BearerTokens::from_file(&dir.path().join("nope"))
            .unwrap_err()
            .0;
        assert!(missing.contains("cannot read the token file"), "{missing}");
        let unset = BearerTokens::from_env("HERMES_TOOLS_SURELY_UNSET_TOKENS")
            .unwrap_err()
            .0;
        assert!(
            unset.contains("HERMES_TOOLS_SURELY_UNSET_TOKENS is not set"),
            "{unset}"
        );
    }
}
