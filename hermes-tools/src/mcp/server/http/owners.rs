//! Sessions belong to whoever opened them.
//!
//! With authentication (bearer tokens, OAuth), each Streamable HTTP session is bound to the
//! identity whose token opened it, and a request naming a session of another identity is
//! answered as if the session did not exist (404). A session id that leaks (into a log, past a
//! proxy) so gives nobody else that session's state, questions or answers: sessions never
//! stand in for authentication, as the MCP security best practices ask ("bind session IDs to
//! user-specific information").
//!
//! The identity is, for static bearer tokens, which token (a client that switches to another
//! token while rotating starts a new session); for OAuth, the token's subject (`sub`), so that
//! a client that refreshes its token keeps its session, else (an authorization server that
//! names no subject) the token itself.

use std::collections::HashMap;
#[cfg(feature = "mcp-remote")]
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;

use crate::sync::Mutex;

/// Who opened a session, compared whole, never logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The holder of the accepted bearer token at this place in the list.
    Bearer(usize),
    /// An OAuth token's subject.
    #[cfg(feature = "mcp-remote")]
    Subject(Arc<str>),
    /// An OAuth token that names no subject, by a keyed hash of it.
    #[cfg(feature = "mcp-remote")]
    Token(u64),
}

/// The identity of the `index`th accepted bearer token.
pub(crate) fn bearer(index: usize) -> Owner {
    Owner::Bearer(index)
}

/// The identity an OAuth authorization server gave a token: its subject, if it names one
/// (not its client: every user of one client app would then be one identity).
#[cfg(feature = "mcp-remote")]
pub(crate) fn oauth(subject: Option<&str>) -> Option<Owner> {
    subject
        .filter(|subject| !subject.is_empty())
        .map(|subject| Owner::Subject(Arc::from(subject)))
}

/// The owners of one endpoint's live sessions.
#[derive(Default)]
pub(crate) struct SessionOwners {
    owners: Mutex<HashMap<Arc<str>, Owner>>,
    /// Keys the names of identities known only by their token, so that no token is kept.
    #[cfg(feature = "mcp-remote")]
    salt: RandomState,
}

impl SessionOwners {
    /// The identity of a token that names none (an OAuth token without a subject).
    #[cfg(feature = "mcp-remote")]
    pub(crate) fn token(&self, token: &[u8]) -> Owner {
        Owner::Token(self.salt.hash_one(token))
    }

    /// Records that `owner` opened `session`, forgetting the sessions that have ended (those
    /// for which `live` is false).
    pub(crate) fn bind(&self, session: &str, owner: Owner, live: impl Fn(&str) -> bool) {
        let mut owners = self.owners.lock();
        owners.retain(|session, _| live(session));
        owners.insert(Arc::from(session), owner);
    }

    /// Whether `owner` may use `session`: it opened it, or nobody is recorded as having done
    /// so (a session `rmcp` does not know either, which it answers 404 itself).
    pub(crate) fn admits(&self, session: &str, owner: &Owner) -> bool {
        self.owners
            .lock()
            .get(session)
            .is_none_or(|opener| opener == owner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_admits_only_its_opener() {
        let owners = SessionOwners::default();
        let (alice, bob) = (bearer(0), bearer(1));
        owners.bind("s-1", alice.clone(), |_| true);
        owners.bind("s-2", bob.clone(), |_| true);
        assert!(owners.admits("s-1", &alice));
        assert!(!owners.admits("s-1", &bob));
        assert!(owners.admits("s-2", &bob));
        assert!(!owners.admits("s-2", &alice));
        assert!(owners.admits("unknown", &bob), "rmcp answers 404 for it");
    }

    #[test]
    fn ended_sessions_are_forgotten_when_one_opens() {
        let owners = SessionOwners::default();
        owners.bind("old", bearer(0), |_| true);
        owners.bind("new", bearer(1), |session| session != "old");
        assert_eq!(owners.owners.lock().len(), 1);
        assert!(owners.admits("old", &bearer(1)));
    }

    #[test]
    #[cfg(feature = "mcp-remote")]
    fn oauth_identities_are_subjects_else_tokens_which_are_not_kept() {
        assert_eq!(oauth(Some("alice")), Some(Owner::Subject("alice".into())));
        assert_eq!(oauth(Some("")), None);
        assert_eq!(oauth(None), None);
        let owners = SessionOwners::default();
        let named = owners.token(b"token-without-a-subject");
        assert_eq!(named, owners.token(b"token-without-a-subject"));
        assert_ne!(named, owners.token(b"another-token"));
        assert!(!format!("{named:?}").contains("without"), "{named:?}");
    }
}
