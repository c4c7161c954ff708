//! Telling connected clients that the tool listing changed.
//!
//! One watcher per server configuration, shared by all its sessions ([`ListingChanges`]): it
//! wakes when the registry changes ([`ToolRegistry::subscribe`]), and also every
//! [`poll_interval`](super::ToolServer::poll_interval), for what has no change signal: an
//! installed config, a check function whose answer expired. It then takes the listing (from
//! the definitions cache: a pointer comparison when nothing changed) and, only when the
//! listing differs from the one it last saw, publishes a new version: registering an alias or
//! a tool outside the selection sends nothing. Each session waits on that version, with no
//! timer of its own, and tells its client.
//!
//! Why shared: the listing is the server's, not the session's, and a watcher per session
//! woke every idle session four times a second to compare it (1,000 idle sessions: 4,000
//! wake-ups a second), and outlived a session by up to a poll interval. The watcher runs
//! while any session waits on it, and ends at its next wake-up once none does.
//!
//! [`ToolRegistry::subscribe`]: crate::ToolRegistry::subscribe

use crate::sync::Mutex;
use tokio::sync::watch;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use super::{Listing, ToolServer};

/// The listing's versions, shared by the clones of a server (its sessions); see the module
/// docs.
#[derive(Default)]
pub(super) struct ListingChanges {
    /// A receiver of the running watcher's versions, `None` when no watcher runs. Only ever
    /// replaced under this lock, which the watcher also takes to decide to end.
    running: Mutex<Option<watch::Receiver<u64>>>,
}

impl ListingChanges {
    /// The listing's changes from now on, as `server` lists its tools: starts the watcher
    /// (on the current Tokio runtime) if none runs.
    pub(super) fn subscribe(&self, server: &ToolServer) -> Changes {
        let mut running = self.running.lock();
        if let Some(versions) = running.as_ref() {
            let mut versions = versions.clone();
            versions.mark_unchanged();
            return Changes { versions };
        }
        let (publish, versions) = watch::channel(0);
        // The baseline is taken now, before anything is awaited, so that a change made right
        // after the session began is not mistaken for the baseline.
        let watcher = Watcher {
            server: server.clone(),
            listing: server.listing().ok(),
        };
        tokio::spawn(watcher.run(publish));
        *running = Some(versions.clone());
        Changes { versions }
    }

    /// Whether a watcher runs (for tests).
    #[cfg(test)]
    pub(super) fn is_running(&self) -> bool {
        self.running.lock().is_some()
    }
}

/// A token cancelled when its holder (a session's server) is dropped.
pub(super) struct SessionEnd {
    pub(super) token: CancellationToken,
    _guard: tokio_util::sync::DropGuard,
}

impl SessionEnd {
    pub(super) fn new() -> Self {
        let token = CancellationToken::new();
        Self {
            _guard: token.clone().drop_guard(),
            token,
        }
    }
}

/// One session's view of the listing's changes.
pub(super) struct Changes {
    versions: watch::Receiver<u64>,
}

impl Changes {
    /// Waits for the next change: `true` when the listing changed, `false` once `ended` is
    /// cancelled (the session ended) or the watcher is gone.
    pub(super) async fn next(&mut self, ended: &CancellationToken) -> bool {
        tokio::select! {
            changed = self.versions.changed() => changed.is_ok(),
            () = ended.cancelled() => false,
        }
    }
}

/// The shared watcher: a clone of the server (its configuration, not a session's state) and
/// the listing it last saw.
struct Watcher {
    server: ToolServer,
    listing: Option<Listing>,
}

impl Watcher {
    /// Publishes a new version on `publish` each time the listing changes, until no session
    /// waits on it.
    async fn run(mut self, publish: watch::Sender<u64>) {
        let mut ticks = tokio::time::interval(self.server.shared.poll_interval);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut changes = self.server.shared.registry.subscribe();
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                changed = changes.changed() => {
                    if changed.is_err() {
                        self.end();
                        return;
                    }
                }
            }
            {
                // The receiver kept in `running` is the only one left: no session waits.
                let mut running = self.server.shared.listing_changes.running.lock();
                if publish.receiver_count() <= 1 {
                    *running = None;
                    return;
                }
            }
            let listing = self.server.listing().ok();
            if listing == self.listing {
                continue;
            }
            self.listing = listing;
            publish.send_modify(|version| *version += 1);
        }
    }

    /// Marks no watcher running, so that the next session starts one.
    fn end(&self) {
        *self.server.shared.listing_changes.running.lock() = None;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::tool::Tool;
    use crate::{ToolContext, ToolRegistry};

    fn tool(name: &str) -> Tool {
        Tool::builder(name, "demo")
            .description("A tool of the test.")
            .handler(|_: serde_json::Value, _: &ToolContext| "ok")
            .build()
    }

    #[tokio::test(start_paused = true)]
    async fn one_watcher_tells_every_session_and_ends_when_none_waits() {
        let registry = ToolRegistry::new();
        registry.register(tool("first")).unwrap();
        let server = ToolServer::new(registry.clone()).poll_interval(Duration::from_millis(10));
        let (one, two) = (server.clone(), server.clone());
        let ended = CancellationToken::new();
        let mut first = one.shared.listing_changes.subscribe(&one);
        let mut second = two.shared.listing_changes.subscribe(&two);
        // Clones share the watcher.
        assert!(server.shared.listing_changes.is_running());
        assert!(Arc::ptr_eq(
            &one.shared.listing_changes,
            &two.shared.listing_changes
        ));

        registry.register(tool("second")).unwrap();
        assert!(first.next(&ended).await);
        assert!(second.next(&ended).await);

        // A session that ended stops waiting at once.
        let gone = CancellationToken::new();
        gone.cancel();
        assert!(!first.next(&gone).await);

        drop((first, second));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!server.shared.listing_changes.is_running());
        // The next session starts a new one, which sees the next change.
        let mut third = server.shared.listing_changes.subscribe(&server);
        assert!(server.shared.listing_changes.is_running());
        registry.register(tool("third")).unwrap();
        assert!(third.next(&ended).await);
    }
}
