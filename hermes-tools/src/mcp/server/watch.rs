//! Telling connected clients that the tool listing changed.
//!
//! Each connection wakes when the registry changes ([`ToolRegistry::subscribe`]), and also
//! every [`poll_interval`](super::ToolServer::poll_interval), for what has no change signal:
//! an installed config, a check function whose answer expired. It then takes the listing
//! (from the definitions cache: a pointer comparison when nothing changed) and notifies the
//! client only when the listing differs from the one last seen: registering an alias or a tool
//! outside the selection sends nothing.
//!
//! [`ToolRegistry::subscribe`]: crate::ToolRegistry::subscribe

use std::future::Future;

use tokio::time::MissedTickBehavior;

use super::{Listing, ToolServer};

/// What a connection's client was last shown, to compare against.
pub(super) struct ListingWatch {
    server: ToolServer,
    listing: Option<Listing>,
}

impl ListingWatch {
    /// Takes the baseline now, before anything is awaited, so that a change made right after
    /// the session began is not mistaken for the baseline.
    pub(super) fn new(server: &ToolServer) -> Self {
        Self {
            // A clone carries the configuration, not the connection's session state.
            server: server.clone(),
            listing: server.listing().ok(),
        }
    }

    /// Calls `notify` each time the listing changes, while `open` says the connection is,
    /// until `notify` reports that the client can no longer be reached.
    pub(super) async fn run<Notify, Sent>(mut self, open: impl Fn() -> bool, mut notify: Notify)
    where
        Notify: FnMut() -> Sent,
        Sent: Future<Output = bool>,
    {
        let mut ticks = tokio::time::interval(self.server.poll_interval);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut changes = self.server.registry.subscribe();
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                changed = changes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
            }
            if !open() {
                return;
            }
            let listing = self.server.listing().ok();
            if listing == self.listing {
                continue;
            }
            self.listing = listing;
            if !notify().await {
                return;
            }
        }
    }
}
