//! What one session's [`ToolServer`](super::ToolServer) keeps for itself, and the ids sessions
//! get.
//!
//! A server is made per session (a clone per connection, and per request for a 2026-07-28
//! client over HTTP); what every session shares sits behind the server's one `Arc`, what is
//! its own here, behind one `Box`. The server is then two pointers: `rmcp` builds the futures
//! that hold it in place, where with this state inline it copied them whole (two more 8 KB
//! copies of each session's worker future, seen in the disassembly; what they cost is counted
//! by `bench/session-instructions --http`).

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use super::watch::Enrolment;
use crate::ToolContext;
use crate::call::LogLevel;

/// One session's own state.
pub(super) struct SessionState {
    /// This connection's context: the server's `context` in a session of its own, made on
    /// first use.
    pub(super) context: OnceLock<ToolContext>,
    /// The least severe log message this connection's client is sent (`logging/setLevel`;
    /// `info` until it says), as a [`LogLevel`] index: for requests of the `initialize` era
    /// only (one of the 2026-07-28 era carries its own).
    pub(super) log_level: Arc<AtomicU8>,
    /// This session's place among those told of the listing's changes, once its client
    /// is initialized (`initialize` era only); it ends when this state is dropped, with the
    /// session's server, which `rmcp` drops when the session ends.
    pub(super) listing_enrolment: OnceLock<Enrolment>,
}

impl Default for SessionState {
    fn default() -> Self {
        Self {
            context: OnceLock::new(),
            log_level: Arc::new(AtomicU8::new(LogLevel::Info as u8)),
            listing_enrolment: OnceLock::new(),
        }
    }
}

/// A session id no other session of this process has had, and unlikely to recur in another
/// run (a tool may name files after it): `mcp-<run>-<n>`.
pub(super) fn next_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    static RUN: OnceLock<u64> = OnceLock::new();
    let run = RUN.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        // RandomState is seeded from the OS: a different value each run, no extra dependency.
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        hasher.finish()
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("mcp-{:08x}-{n}", run & 0xffff_ffff)
}

#[cfg(test)]
mod tests {
    use super::super::ToolServer;
    use super::*;

    #[test]
    fn session_ids_do_not_repeat_and_name_the_run() {
        let (first, second) = (next_id(), next_id());
        assert_ne!(first, second);
        let run = |id: &str| id.rsplit_once('-').map(|(run, _)| run.to_owned());
        assert_eq!(run(&first), run(&second), "{first} and {second}");
        assert!(first.starts_with("mcp-"), "{first}");
    }

    #[test]
    fn each_clone_of_a_server_is_a_session_of_its_own() {
        use crate::{ToolContext, ToolRegistry};
        let server = ToolServer::new(ToolRegistry::new());
        let clone = server.clone();
        let (ours, theirs) = (
            server.session_context().session_id().map(str::to_owned),
            clone.session_context().session_id().map(str::to_owned),
        );
        assert!(ours.is_some() && theirs.is_some());
        assert_ne!(ours, theirs);
        clone
            .own
            .log_level
            .store(LogLevel::Error as u8, Ordering::Relaxed);
        assert_eq!(
            server.own.log_level.load(Ordering::Relaxed),
            LogLevel::Info as u8
        );
        // A new context replaces the session it was made in: a new one is made on first use.
        let server = server.context(ToolContext::new());
        let renewed = server.session_context().session_id().map(str::to_owned);
        assert!(renewed.is_some());
        assert_ne!(renewed, ours);
    }

    #[test]
    fn a_server_is_two_pointers() {
        // What keeps rmcp from copying each session's worker future whole (see the module).
        assert_eq!(
            std::mem::size_of::<ToolServer>(),
            2 * std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn a_new_session_starts_at_info_with_no_context_and_not_enrolled() {
        let state = SessionState::default();
        assert_eq!(
            state.log_level.load(Ordering::Relaxed),
            LogLevel::Info as u8
        );
        assert!(state.context.get().is_none());
        assert!(state.listing_enrolment.get().is_none());
    }
}
